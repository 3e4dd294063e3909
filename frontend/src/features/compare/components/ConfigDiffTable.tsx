// Only the config fields that differ between the compared runs, or that a run changed live: those
// show "at start → at end" and when.
import { changeTimes, startToEnd } from "@/lib/liveChanges";
import { formatValue, KNOB_BY_PATH } from "@/lib/knobs";
import type { ComparePublic } from "@/lib/types";

export function ConfigDiffTable({ comparison, labels }: { comparison: ComparePublic; labels: readonly string[] }) {
  // A definition's own fields are in the definition diff beside this table.
  const diff = comparison.config_diff.filter((d) => d.field !== "name" && !d.field.startsWith("definition."));
  if (diff.length === 0) return <p className="muted">The configs are the same.</p>;
  return (
    <div className="table-scroll">
      <table className="table wrap-head" data-testid="config-diff">
        <thead>
          <tr>
            <th>field</th>
            {comparison.runs.map((r, i) => (
              <th key={r.id}>{labels[i]}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {diff.map((d) => (
            <tr key={d.field} data-testid="config-diff-row">
              <th scope="row" title={KNOB_BY_PATH.get(d.field)?.help}>
                {KNOB_BY_PATH.get(d.field)?.label ?? d.field}
                {KNOB_BY_PATH.has(d.field) && <span className="muted small"> {d.field}</span>}
              </th>
              {comparison.runs.map((r, i) => {
                const live = r.live_changes.find((c) => c.field === d.field);
                return live ? (
                  <td key={r.id} data-testid={`config-diff-${d.field}-${i}`} data-changed="true">
                    <strong>{startToEnd(live)}</strong> <span className="muted small">changed live at {changeTimes(live)}</span>
                  </td>
                ) : (
                  <td key={r.id} data-testid={`config-diff-${d.field}-${i}`}>
                    {formatValue(d.values[i])}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
