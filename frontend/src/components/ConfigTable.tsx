// A run config as a table of knobs, grouped by section, with units; only the sections its workload uses.
// A field changed while the run ran shows "at start → at end" and when it changed.
import { unitFor } from "@/lib/format";
import { formatValue, getPath, KNOBS, SECTION_TITLES, sectionUsed } from "@/lib/knobs";
import type { LiveChange, RunConfig, WorkloadDefinition } from "@/lib/types";
import { changeTimes, startToEnd } from "@/lib/liveChanges";

export function ConfigTable({ config, changes = [] }: { config: RunConfig; changes?: readonly LiveChange[] }) {
  const changed = new Map(changes.map((c) => [c.field, c]));
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
                {changed.has(k.path) ? (
                  <td data-testid={`config-${k.path}`} data-changed="true">
                    <strong>{startToEnd(changed.get(k.path) as LiveChange)}</strong> <span className="muted small">changed live at {changeTimes(changed.get(k.path) as LiveChange)}</span>
                  </td>
                ) : (
                  <td data-testid={`config-${k.path}`}>
                    {formatValue(getPath(config, k.path))}
                    {k.unit && getPath(config, k.path) != null ? <span className="muted"> {unitFor(k, getPath(config, k.path))}</span> : null}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      ))}
      {config.workload === "definition" && config.definition && <DefinitionKnobs config={config} changed={changed} />}
    </div>
  );
}

/** A definition run's knobs: the value each ran with (set, or the definition's default), with its unit. */
function DefinitionKnobs({ config, changed }: { config: RunConfig; changed: ReadonlyMap<string, LiveChange> }) {
  const definition = config.definition as WorkloadDefinition;
  const knobs = Object.entries(definition.knobs ?? {});
  if (knobs.length === 0) return null;
  return (
    <table className="table compact">
      <caption>Knobs of {definition.name}</caption>
      <tbody>
        {knobs.map(([name, knob]) => {
          const value = config.knobs?.[name] ?? knob.default;
          const change = changed.get(`knobs.${name}`);
          return (
            <tr key={name} title={knob.help ?? undefined}>
              <th scope="row">{name}</th>
              <td data-testid={`config-knobs.${name}`} data-changed={change ? "true" : undefined}>
                {change ? <strong>{startToEnd(change)}</strong> : formatValue(value)}
                {knob.unit ? <span className="muted"> {unitFor(knob, change ? change.at_end : value)}</span> : null}
                {change && <span className="muted small"> changed live at {changeTimes(change)}</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
