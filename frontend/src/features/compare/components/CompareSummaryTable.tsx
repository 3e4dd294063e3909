// Each metric per run, with its delta and percent change against the baseline, coloured.
import { useState } from "react";
import { formatNumber, formatPercent, formatSigned } from "@/lib/format";
import type { ComparePublic } from "@/lib/types";
import { KEY_METRICS, metricRows } from "../api/compare";
import { deltaTone } from "../utils/deltas";

export function CompareSummaryTable({ comparison, labels }: { comparison: ComparePublic; labels: readonly string[] }) {
  const [showAll, setShowAll] = useState(false);
  const all = metricRows(comparison);
  if (all.length === 0) return <p className="muted">These runs have no summaries yet.</p>;
  const key = all.filter((m) => m.name in KEY_METRICS);
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
          {metrics.map(({ name, better, cells }) => (
            <tr key={name} data-testid="compare-metric" data-metric={name}>
              <th scope="row" title={name}>
                {KEY_METRICS[name] ?? name}
              </th>
              {cells.map((cell, i) => {
                const tone = i === 0 ? "neutral" : deltaTone(name, cell.delta, cell.percent, cells[0]?.value, better);
                return (
                  <td key={comparison.runs[i]?.id ?? i} className={`num tone-${tone}`} data-testid={`cell-${name}-${i}`} data-value={cell.value ?? ""} data-delta={cell.delta ?? ""} data-percent={cell.percent ?? ""} data-tone={tone}>
                    <span className="cell-value">{formatNumber(cell.value, 2)}</span>
                    {i > 0 && (
                      <span className="cell-delta">
                        {formatSigned(cell.delta)} ({formatPercent(cell.percent)})
                      </span>
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
          {showAll ? `Show the ${key.length} headline metrics only` : `Show all ${all.length} metrics`}
        </button>
      )}
    </div>
  );
}
