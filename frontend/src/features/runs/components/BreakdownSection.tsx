// A finished run's "where the time goes": per operation kind, the whole run's percentage bar (from
// the intended start, and from the actual start: what the application sees), how each part was
// obtained, and its client latency next to its server latency (p50, p99).
import { BreakdownBar, BreakdownLegend } from "@/components/BreakdownBar";
import { fromActualStart, SERVER_SUFFIX } from "@/lib/breakdown";
import { formatMs } from "@/lib/format";
import type { Breakdown, Summary } from "@/lib/types";

/** Did operations wait behind the pacer? Only then does the bar from the actual start differ. */
function queued(b: Breakdown | undefined): boolean {
  return (b?.parts.find((p) => p.part === "queue")?.ms ?? 0) > 0;
}

export function BreakdownSection({ summary }: { summary: Summary | null | undefined }) {
  const ops = Object.keys(summary?.breakdown ?? {})
    .filter((op) => (summary?.breakdown[op]?.count ?? 0) > 0)
    .sort();
  if (!summary || ops.length === 0) return <p className="muted">No breakdown: this run recorded none.</p>;
  return (
    <div className="breakdown-section" data-testid="breakdown-section">
      {ops.map((op) => {
        const client = summary.latency[op];
        const server = summary.latency[op + SERVER_SUFFIX];
        return (
          <div key={op} className="breakdown-op" data-testid={`breakdown-${op}`}>
            <BreakdownBar breakdown={summary.breakdown[op]} label={op} testId={`breakdown-bar-${op}`} />
            {queued(summary.breakdown[op]) && (
              <BreakdownBar breakdown={fromActualStart(summary.breakdown[op])} label="from the actual start" testId={`breakdown-actual-bar-${op}`} />
            )}
            <p className="small breakdown-latency" data-testid={`breakdown-latency-${op}`}>
              client p50 <strong>{formatMs(client?.p50)}</strong>, p99 <strong>{formatMs(client?.p99)}</strong> · server p50{" "}
              <strong>{formatMs(server?.p50)}</strong>, p99 <strong>{formatMs(server?.p99)}</strong>
            </p>
            <BreakdownLegend breakdown={summary.breakdown[op]} />
          </div>
        );
      })}
    </div>
  );
}
