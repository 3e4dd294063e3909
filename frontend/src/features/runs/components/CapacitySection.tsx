// A capacity search's result: latency (p50, p95, p99 from the intended start) against achieved
// throughput, one point per judged step, the knee (the last step that held) marked; then what the
// next step broke, who was the limit, and the table of steps.
import { CapacityCurveChart } from "@/components/CapacityCurve";
import { formatNumber } from "@/lib/format";
import type { CapacityResult } from "@/lib/types";

export function CapacitySection({ capacity }: { capacity: CapacityResult }) {
  // in order of rate (a bisection judges them out of order); the knee is the server's
  const points = [...capacity.steps]
    .sort((a, b) => a.rate - b.rate)
    .map((s) => ({ rate: s.rate, achieved: s.achieved, p50: s.p50, p95: s.p95, p99: s.p99, held: s.held, knee: s.held && s.rate === capacity.knee }));
  return (
    <div className="capacity" data-testid="capacity-summary">
      <h2>Capacity</h2>
      <p>
        Knee{" "}
        <strong data-testid="capacity-knee">{capacity.knee === null ? "none (the first step broke)" : `${formatNumber(capacity.knee, 0)}/s`}</strong>, limited by{" "}
        <strong data-testid="capacity-limit">{capacity.limited_by}</strong>
        {capacity.broke_by.length > 0 && <span className="muted">: the next step broke: {capacity.broke_by.join("; ")}</span>}
      </p>
      {capacity.note && <p className="muted small">{capacity.note}</p>}
      <CapacityCurveChart series={[{ label: "this run", points }]} />
      <div className="table-scroll">
        <table className="table compact" data-testid="capacity-steps">
          <caption>Steps</caption>
          <thead>
            <tr>
              <th className="num">rate</th>
              <th className="num">achieved</th>
              <th className="num">p50 ms</th>
              <th className="num">p95 ms</th>
              <th className="num">p99 ms</th>
              <th className="num">errors %</th>
              <th className="num">server CPU %</th>
              <th className="num">worker CPU %</th>
              <th>verdict</th>
            </tr>
          </thead>
          <tbody>
            {capacity.steps.map((s) => (
              <tr key={s.rate} data-testid={`capacity-step-${s.rate}`}>
                <td className="num">{formatNumber(s.rate, 0)}</td>
                <td className="num">{formatNumber(s.achieved, 1)}</td>
                <td className="num">{formatNumber(s.p50, 1)}</td>
                <td className="num">{formatNumber(s.p95, 1)}</td>
                <td className="num">{formatNumber(s.p99, 1)}</td>
                <td className="num">{formatNumber(s.errors_pct, 2)}</td>
                <td className="num">{s.server_cpu === null ? "-" : formatNumber(s.server_cpu * 100, 0)}</td>
                <td className="num">{s.client_cpu === null ? "-" : formatNumber(s.client_cpu * 100, 0)}</td>
                <td className={s.held ? "ok" : "bad"}>
                  {s.held ? "held" : `broke: ${s.broke_by.join("; ")}`}
                  {s.stable ? "" : " (not stable)"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
