// Latency percentiles per operation (ms), one row per op.
import { formatMs, formatNumber } from "@/lib/format";
import type { Percentiles } from "@/lib/types";

const COLS: (keyof Percentiles)[] = ["count", "p50", "p90", "p95", "p99", "p999", "max", "mean"];

export function PercentileTable({ latency, caption, testId }: { latency: Partial<Record<string, Percentiles>>; caption?: string; testId?: string }) {
  const ops = Object.entries(latency).filter((e): e is [string, Percentiles] => !!e[1] && e[1].count > 0);
  if (ops.length === 0) return <p className="muted">No latency recorded.</p>;
  return (
    <div className="table-scroll">
      <table className="table" data-testid={testId}>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            <th>operation</th>
            {COLS.map((c) => (
              <th key={c} className="num">
                {c === "p999" ? "p99.9" : c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {ops.map(([op, p]) => (
            <tr key={op}>
              <th scope="row">{op}</th>
              {COLS.map((c) => (
                <td key={c} className="num">
                  {c === "count" ? formatNumber(p.count, 0) : formatMs(p[c])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
