// A capacity search's result: latency (p50, p95, p99 from the intended start) against achieved
// throughput, one point per judged step, the knee (the last step that held) marked; then what the
// next step broke, who was the limit, and the table of steps.
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { colorAt } from "@/components/palette";
import { formatNumber } from "@/lib/format";
import type { CapacityResult } from "@/lib/types";

const PERCENTILES = ["p50", "p95", "p99"] as const;

export function CapacitySection({ capacity }: { capacity: CapacityResult }) {
  const points = capacity.steps.map((s) => ({ achieved: s.achieved, p50: s.p50, p95: s.p95, p99: s.p99 }));
  const knee = capacity.steps.filter((s) => s.held).at(-1);
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
      <figure className="chart" data-testid="chart-capacity" data-points={points.length} data-knee={knee ? knee.achieved : ""}>
        <figcaption className="chart-title">
          Latency against throughput <span className="muted">(ms from the intended start, by achieved operations/s)</span>
        </figcaption>
        <ResponsiveContainer width="100%" height={280}>
          <LineChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
            <XAxis dataKey="achieved" type="number" domain={["dataMin", "dataMax"]} tickFormatter={(x: number) => formatNumber(x, 0)} stroke="var(--muted)" fontSize={11} />
            <YAxis stroke="var(--muted)" fontSize={11} width={44} tickFormatter={(v: number) => formatNumber(v)} />
            <Tooltip />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {knee && <ReferenceLine x={knee.achieved} stroke="var(--muted)" strokeDasharray="4 4" label={{ value: "knee", fontSize: 11 }} />}
            {PERCENTILES.map((p, i) => (
              <Line key={p} type="linear" dataKey={p} name={`${p} (ms)`} stroke={colorAt(i)} dot isAnimationActive={false} connectNulls />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </figure>
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
