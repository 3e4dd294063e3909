// Each metric per run, with its delta against the baseline and that delta's uncertainty from the
// runs' own interval-to-interval noise: coloured better or worse only beyond the noise. The compared
// workloads' key figures come first; every metric is one click away.
import { type CSSProperties, useState } from "react";
import { LiveChangeBadge } from "@/components/LiveChanges";
import { formatNumber } from "@/lib/format";
import { describeChanges } from "@/lib/liveChanges";
import type { ComparePublic } from "@/lib/types";
import { metricRows, scaleCell } from "../api/compare";
import { deltaText, deltaTone } from "../utils/deltas";

const MIXED = "Part of this run (or of the baseline) ran with another config: it was changed live.";

export function CompareSummaryTable({ comparison, labels }: { comparison: ComparePublic; labels: readonly string[] }) {
  const [showAll, setShowAll] = useState(false);
  const all = metricRows(comparison);
  if (all.length === 0) return <p className="muted">These runs have no summaries yet.</p>;
  const key = all.filter((m) => m.label !== null);
  const mixed = comparison.runs.map((r) => r.live_changes.length > 0);
  const metrics = showAll || key.length === 0 ? all : key;
  return (
    <div className="table-scroll">
      {/* On a narrow screen the columns are headed #1, #2...: this key says which run each is. */}
      <ul className="run-key small" data-testid="compare-run-key">
        {labels.map((label, i) => (
          <li key={comparison.runs[i]?.id ?? i}>{label}</li>
        ))}
      </ul>
      <table className="table wrap-head compare-fit" data-testid="compare-summary" style={{ "--runs": comparison.runs.length } as CSSProperties}>
        <thead>
          <tr>
            <th>metric</th>
            {comparison.runs.map((r, i) => (
              <th key={r.id} className="num" data-short={`#${i + 1}`}>
                <span className="run-long">{labels[i]}</span>
                {i === 0 && <span className="tag">baseline</span>}
                <LiveChangeBadge changes={r.live_changes} testId={`live-changed-${i}`} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {metrics.map(({ name, label, better, cells, scale }) => (
            <tr key={name} data-testid="compare-metric" data-metric={name}>
              <th scope="row" title={name}>
                {label ?? name}
              </th>
              {cells.map((cell, i) => {
                const tone = i === 0 ? "neutral" : deltaTone(cell, better);
                const shown = scaleCell(cell, scale);
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
                    <span className="cell-value">{cell.value === null && cell.unavailable ? "n/a" : formatNumber(shown.value, 2)}</span>
                    {cell.value === null && cell.unavailable ? (
                      <span className="cell-delta">{cell.unavailable}</span>
                    ) : (
                      i > 0 && <span className="cell-delta">{deltaText(shown, cells[0]?.value == null ? null : cells[0].value * scale)}</span>
                    )}
                    {cell.delta !== null && (mixed[i] || (i > 0 && mixed[0])) && (
                      <span className="cell-note" title={MIXED}>
                        mixed config
                      </span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {comparison.runs.map(
        (r, i) =>
          mixed[i] && (
            <p key={r.id} className="small muted" data-testid={`mixed-config-${i}`}>
              {labels[i]} was changed live, so part of it ran with another config: {describeChanges(r.live_changes)}.
              Its deltas mix both.
            </p>
          ),
      )}
      {key.length > 0 && key.length < all.length && (
        <button type="button" className="link-button" onClick={() => setShowAll((s) => !s)} data-testid="show-all-metrics">
          {showAll ? `Show the ${key.length} key figures only` : `Show all ${all.length} metrics`}
        </button>
      )}
    </div>
  );
}
