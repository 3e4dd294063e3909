// Each metric per run, with its delta against the baseline and that delta's uncertainty from the
// runs' own interval-to-interval noise: coloured better or worse only beyond the noise. The compared
// workloads' key figures come first; every metric is one click away.
import { useState } from "react";
import { formatNumber } from "@/lib/format";
import type { ComparePublic } from "@/lib/types";
import { metricRows } from "../api/compare";
import { deltaText, deltaTone } from "../utils/deltas";

export function CompareSummaryTable({ comparison, labels }: { comparison: ComparePublic; labels: readonly string[] }) {
  const [showAll, setShowAll] = useState(false);
  const all = metricRows(comparison);
  if (all.length === 0) return <p className="muted">These runs have no summaries yet.</p>;
  const key = all.filter((m) => m.label !== null);
  const metrics = showAll || key.length === 0 ? all : key;
  return (
    <div className="table-scroll">
      <table className="table wrap-head" data-testid="compare-summary">
        <thead>
          <tr>
            <th>metric</th>
            {comparison.runs.map((r, i) => (
              <th key={r.id} className="num">
                {labels[i]}
                {i === 0 && <span className="tag">baseline</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {metrics.map(({ name, label, better, cells }) => (
            <tr key={name} data-testid="compare-metric" data-metric={name}>
              <th scope="row" title={name}>
                {label ?? name}
              </th>
              {cells.map((cell, i) => {
                const tone = i === 0 ? "neutral" : deltaTone(cell, better);
                return (
                  <td
                    key={comparison.runs[i]?.id ?? i}
                    className={`num tone-${tone}`}
                    data-testid={`cell-${name}-${i}`}
                    data-value={cell.value ?? ""}
                    data-delta={cell.delta ?? ""}
                    data-percent={cell.percent ?? ""}
                    data-tone={tone}
                    title={cell.unavailable ?? undefined}
                  >
                    <span className="cell-value">{cell.value === null && cell.unavailable ? "n/a" : formatNumber(cell.value, 2)}</span>
                    {cell.value === null && cell.unavailable ? (
                      <span className="cell-delta">{cell.unavailable}</span>
                    ) : (
                      i > 0 && <span className="cell-delta">{deltaText(cell, cells[0]?.value ?? null)}</span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {key.length > 0 && key.length < all.length && (
        <button type="button" className="link-button" onClick={() => setShowAll((s) => !s)} data-testid="show-all-metrics">
          {showAll ? `Show the ${key.length} key figures only` : `Show all ${all.length} metrics`}
        </button>
      )}
    </div>
  );
}
