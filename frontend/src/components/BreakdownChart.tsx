// Where the time goes, over time, for one operation kind: its mean parts stacked (queue, session
// wait, client library and network, server...) with its client and server latency p50/p99 drawn
// over them on the same axis. Presentational: takes the samples, picks nothing from the network.
import { useState } from "react";
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { breakdownOps, breakdownRows, LATENCY_LINES, PART_COLORS, PART_LABELS, partsIn } from "@/lib/breakdown";
import { formatDuration, formatNumber } from "@/lib/format";
import type { Sample } from "@/lib/types";
import { TIME_TOOLTIP } from "./chartStyle";

export interface BreakdownChartProps {
  op: string;
  samples: readonly Sample[];
  height?: number;
  syncId?: string;
  /** Leave out the queue behind the pacer: the parts of the latency the application sees. */
  fromActualStart?: boolean;
}

export function BreakdownChart({ op, samples, height = 240, syncId, fromActualStart = false }: BreakdownChartProps) {
  const rows = breakdownRows(samples, op);
  const parts = partsIn(samples.map((s) => s.breakdown?.[op])).filter((p) => !fromActualStart || p !== "queue");
  const points = rows.filter((r) => parts.some((p) => r[p] != null)).length;
  return (
    <figure className="chart" data-testid={`breakdown-chart-${op}`} data-op={op} data-points={points} data-parts={parts.join(" ")}>
      <figcaption className="chart-title">
        Where the time goes: {op} <span className="muted">(ms; mean parts stacked, client and server p50/p99 as lines)</span>
      </figcaption>
      {points === 0 ? (
        <div className="chart-empty" style={{ height }}>
          No operations of this kind yet.
        </div>
      ) : (
        <ResponsiveContainer width="100%" height={height}>
          <ComposedChart data={rows} syncId={syncId} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
            <XAxis dataKey="x" type="number" domain={["dataMin", "dataMax"]} tickFormatter={(x: number) => formatDuration(x)} stroke="var(--muted)" fontSize={11} />
            <YAxis stroke="var(--muted)" fontSize={11} width={48} tickFormatter={(v: number) => formatNumber(v)} />
            <Tooltip {...TIME_TOOLTIP} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {parts.map((part) => (
              <Area
                key={part}
                type="stepAfter"
                dataKey={part}
                name={PART_LABELS[part]}
                stackId="parts"
                stroke={PART_COLORS[part]}
                fill={PART_COLORS[part]}
                fillOpacity={0.55}
                connectNulls
                isAnimationActive={false}
              />
            ))}
            {LATENCY_LINES.map((line) => (
              <Line
                key={line.key}
                type="linear"
                dataKey={line.key}
                name={line.label}
                stroke={line.color}
                strokeDasharray={line.dashed ? "5 4" : undefined}
                dot={false}
                strokeWidth={1.6}
                connectNulls
                isAnimationActive={false}
              />
            ))}
          </ComposedChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}

/** One breakdown chart per operation kind found in the samples, with a switch that leaves out
 * the queue behind the pacer (which, when the schedule outruns the load, dwarfs the rest). */
export function BreakdownCharts({ samples, syncId }: { samples: readonly Sample[]; syncId?: string }) {
  const [actual, setActual] = useState(false);
  const ops = breakdownOps(samples);
  if (ops.length === 0) return null;
  return (
    <div className="breakdown-charts" data-testid="breakdown-charts">
      <label className="small">
        <input type="checkbox" checked={actual} onChange={(e) => setActual(e.target.checked)} data-testid="breakdown-from-actual-start" /> leave out the queue
        behind the pacer (from the actual start, as the application sees it)
      </label>
      <div className="charts">
        {ops.map((op) => (
          <BreakdownChart key={op} op={op} samples={samples} syncId={syncId} fromActualStart={actual} />
        ))}
      </div>
    </div>
  );
}
