// Latency against achieved throughput, one point per judged step of a capacity search, the knee
// marked. One run: its p50, p95 and p99; several (compare): each run's p99 (solid) and p50 (dashed)
// in its own colour, each knee a dot on its p99 line. Presentational: it takes the curves.
import { CartesianGrid, Legend, Line, LineChart, ReferenceDot, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { colorAt } from "@/components/palette";
import type { CurvePoint } from "@/lib/api/capacity";
import { formatNumber } from "@/lib/format";

export interface CurveSeries {
  label: string;
  points: readonly CurvePoint[];
}

const PERCENTILES = ["p50", "p95", "p99"] as const;

export function CapacityCurveChart({ series, testId = "chart-capacity" }: { series: readonly CurveSeries[]; testId?: string }) {
  const single = series.length === 1 ? series[0] : undefined;
  const knees = series.map((s) => s.points.find((p) => p.knee) ?? null);
  const count = series.reduce((n, s) => n + s.points.length, 0);
  return (
    <figure className="chart" data-testid={testId} data-points={count} data-knee={knees.map((k) => (k ? k.rate : "")).join(",")}>
      <figcaption className="chart-title">
        Latency against throughput <span className="muted">(ms from the intended start, by achieved operations/s)</span>
      </figcaption>
      <ResponsiveContainer width="100%" height={280}>
        <LineChart margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
          <XAxis dataKey="achieved" type="number" domain={["dataMin", "dataMax"]} allowDuplicatedCategory={false} tickFormatter={(x: number) => formatNumber(x, 0)} stroke="var(--muted)" fontSize={11} />
          <YAxis stroke="var(--muted)" fontSize={11} width={44} tickFormatter={(v: number) => formatNumber(v)} />
          <Tooltip />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {single
            ? PERCENTILES.map((p, i) => <Line key={p} data={[...single.points]} type="linear" dataKey={p} name={`${p} (ms)`} stroke={colorAt(i)} dot isAnimationActive={false} connectNulls />)
            : series.flatMap((s, i) => [
                <Line key={`${s.label}-p99`} data={[...s.points]} type="linear" dataKey="p99" name={`${s.label} p99`} stroke={colorAt(i)} dot isAnimationActive={false} connectNulls />,
                <Line key={`${s.label}-p50`} data={[...s.points]} type="linear" dataKey="p50" name={`${s.label} p50`} stroke={colorAt(i)} strokeDasharray="5 4" dot={false} isAnimationActive={false} connectNulls />,
              ])}
          {single && knees[0] && <ReferenceLine x={knees[0].achieved} stroke="var(--muted)" strokeDasharray="4 4" label={{ value: "knee", fontSize: 11 }} />}
          {!single &&
            knees.map((k, i) => (k && k.p99 !== null ? <ReferenceDot key={series[i]?.label} x={k.achieved} y={k.p99} r={6} fill={colorAt(i)} stroke="var(--fg, #000)" label={{ value: "knee", fontSize: 11, position: "top" }} /> : null))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
