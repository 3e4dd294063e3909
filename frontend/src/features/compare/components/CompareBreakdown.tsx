// Where the time goes, run against run: for each operation kind, every run's percentage bar one
// under the other, so a part that grew (session wait, queueing) stands out. The bars come from the
// API's common breakdowns: the same parts in every run, and a note where one run could not be split.
import { useState } from "react";
import { BreakdownBar, PartNotes } from "@/components/BreakdownBar";
import { fromActualStart, PART_COLORS, PART_LABELS, partsIn, SERVER_SUFFIX } from "@/lib/breakdown";
import { formatMs } from "@/lib/format";
import type { ComparePublic } from "@/lib/types";

export function CompareBreakdown({ comparison, labels }: { comparison: ComparePublic; labels: readonly string[] }) {
  const [actual, setActual] = useState(false);
  const summaries = comparison.summaries;
  const breakdowns = comparison.breakdowns;
  const ops = [...new Set(breakdowns.flatMap((b) => Object.keys(b)))].sort();
  if (ops.length === 0) return <p className="muted">None of these runs recorded a breakdown.</p>;
  const parts = partsIn(breakdowns.flatMap((b) => ops.map((op) => b[op]))).filter((p) => !actual || p !== "queue");
  return (
    <div className="breakdown-section" data-testid="compare-breakdown">
      <label className="small">
        <input type="checkbox" checked={actual} onChange={(e) => setActual(e.target.checked)} data-testid="compare-breakdown-from-actual-start" /> leave out the
        queue behind the pacer (from the actual start, as the application sees it)
      </label>
      <ul className="breakdown-legend small">
        {parts.map((part) => (
          <li key={part}>
            <span className="swatch" style={{ background: PART_COLORS[part] }} /> {PART_LABELS[part]}
          </li>
        ))}
      </ul>
      <PartNotes parts={parts} />
      {ops.map((op) => (
        <div key={op} className="breakdown-op" data-testid={`compare-breakdown-${op}`}>
          <h3>{op}</h3>
          {comparison.breakdown_notes[op] && (
            <p className="small muted" data-testid={`compare-breakdown-note-${op}`}>
              {comparison.breakdown_notes[op]}
            </p>
          )}
          {summaries.map((s, i) => (
            <BreakdownBar
              key={comparison.runs[i]?.id ?? i}
              breakdown={actual ? fromActualStart(breakdowns[i]?.[op]) : breakdowns[i]?.[op]}
              label={`${labels[i] ?? comparison.runs[i]?.id ?? ""} · client p99 ${formatMs(s?.latency[op]?.p99)}, server p99 ${formatMs(s?.latency[op + SERVER_SUFFIX]?.p99)}`}
              testId={`compare-breakdown-bar-${op}-${i}`}
            />
          ))}
        </div>
      ))}
    </div>
  );
}
