// The PostgreSQL-interface report's two questions, when the compared runs differ in client.interface
// (e.g. tpcc-1w, pg-tpcc-client, pg-tpcc-pgadapter): PGAdapter's added latency (pgadapter against
// postgresql) and the PostgreSQL dialect against GoogleSQL, per operation kind at p50 and p95, in ms
// and as a share of the round trip. The figures are the API's (model/interface_compare.py).
import { formatMs } from "@/lib/format";
import type { ComparePublic } from "@/lib/types";

function pct(value: number | null): string {
  return value === null ? "—" : `${value.toFixed(1)} %`;
}

export function CompareInterfaces({ comparison, labels }: { comparison: ComparePublic; labels: readonly string[] }) {
  if (comparison.interfaces.length === 0) return null;
  return (
    <div data-testid="compare-interfaces">
      <h2>PostgreSQL interfaces</h2>
      {comparison.interfaces.map((q) => (
        <div key={q.question} data-testid={`compare-interface-${q.other}`}>
          <h3>
            {q.question}: {labels[q.other_run] ?? q.other} ({q.other}) against {labels[q.base_run] ?? q.base} ({q.base})
          </h3>
          <table className="table small">
            <thead>
              <tr>
                <th>operation</th>
                <th>percentile</th>
                <th>{q.base}</th>
                <th>{q.other}</th>
                <th>added</th>
                <th>share of the round trip</th>
              </tr>
            </thead>
            <tbody>
              {q.ops.flatMap((op) =>
                op.deltas.map((d) => (
                  <tr key={`${op.op}-${d.percentile}`} data-testid={`compare-interface-${q.other}-${op.op}-${d.percentile}`}>
                    <td>{op.op}</td>
                    <td>{d.percentile}</td>
                    <td>{formatMs(d.base_ms)}</td>
                    <td>{formatMs(d.other_ms)}</td>
                    <td>{formatMs(d.added_ms)}</td>
                    <td>{pct(d.share_pct)}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}
