// A run config as a table of knobs, grouped by section, with units; only the sections its workload uses.
import { formatValue, getPath, KNOBS, SECTION_TITLES, sectionUsed, unitFor } from "@/lib/knobs";
import type { RunConfig } from "@/lib/types";

export function ConfigTable({ config }: { config: RunConfig }) {
  const sections = (Object.keys(SECTION_TITLES) as (keyof typeof SECTION_TITLES)[]).filter((s) => sectionUsed(s, config.workload));
  return (
    <div className="config-table" data-testid="config-table">
      {sections.map((section) => (
        <table key={section} className="table compact">
          <caption>{SECTION_TITLES[section]}</caption>
          <tbody>
            {KNOBS.filter((k) => k.section === section).map((k) => (
              <tr key={k.path} title={k.help}>
                <th scope="row">{k.label}</th>
                <td data-testid={`config-${k.path}`}>
                  {formatValue(getPath(config, k.path))}
                  {k.unit && getPath(config, k.path) != null ? <span className="muted"> {unitFor(k, getPath(config, k.path))}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}
