// A definition run's operations in the latest interval: target and achieved rate, in flight, behind,
// p50/p99 from the actual start. The charts below show the same over time.
import { OpMetric, opMetric } from "@/lib/api/names.gen";
import { formatValue } from "@/lib/knobs";
import type { Sample } from "@/lib/types";

function rate(v: number | undefined | null): string {
  return typeof v === "number" ? formatValue(Math.round(v * 10) / 10) : "—";
}

export function OperationsNow({ operations, latest }: { operations: readonly string[]; latest: Sample | undefined }) {
  const g = (template: OpMetric, op: string) => latest?.gauges?.[opMetric(template, op)];
  const p = (op: string, q: "p50" | "p99") => latest?.latency?.[opMetric(OpMetric.LATENCY, op)]?.[q];
  return (
    <div className="table-scroll">
      <table className="data-table small ops-now" data-testid="operations-now">
        <thead>
          <tr>
            <th scope="col">operation</th>
            <th scope="col">target/s</th>
            <th scope="col">achieved/s</th>
            <th scope="col">in flight</th>
            <th scope="col">behind</th>
            <th scope="col">p50 ms</th>
            <th scope="col">p99 ms</th>
          </tr>
        </thead>
        <tbody>
          {operations.map((op) => (
            <tr key={op}>
              <th scope="row">{op}</th>
              <td data-testid={`op-target-${op}`}>{rate(g(OpMetric.TARGET_PS, op))}</td>
              <td data-testid={`op-ps-${op}`}>{rate(g(OpMetric.PS, op))}</td>
              <td>{rate(g(OpMetric.IN_FLIGHT, op))}</td>
              <td>{rate(g(OpMetric.BEHIND, op))}</td>
              <td>{rate(p(op, "p50"))}</td>
              <td>{rate(p(op, "p99"))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
