// A presentational time-series chart: rows of {x: elapsed seconds, ...values}, typed line specs,
// and vertical markers. No data fetching here.
import { Brush, CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatDuration, formatNumber } from "@/lib/format";
import { type Marker, type Row, spreadLabels } from "@/lib/series";
import { TIME_TOOLTIP } from "./chartStyle";
import { colorAt, MARKER_COLOR } from "./palette";

/** Markers nearer than this share of the time axis share one label (a label is ~60 px of a ~450 px chart). */
const LABEL_GAP = 0.12;

export interface ChartLine {
  key: string;
  label: string;
  color?: string;
  dashed?: boolean;
  axis?: "left" | "right";
}

export interface TimeChartProps {
  id: string;
  title: string;
  unit: string;
  rightUnit?: string;
  rows: readonly Row[];
  lines: readonly ChartLine[];
  markers?: readonly Marker[];
  height?: number;
  syncId?: string;
  /** Show a brush under the chart; called with the selected elapsed range. */
  onBrush?: (range: [number, number] | null) => void;
  emptyText?: string;
  /** What the chart's less obvious lines mean, shown under its title. */
  help?: string;
}

function tickTime(x: number): string {
  return formatDuration(x);
}

export function TimeChart({ id, title, unit, rightUnit, rows, lines, markers = [], height = 220, syncId, onBrush, emptyText, help }: TimeChartProps) {
  const points = rows.filter((r) => lines.some((l) => r[l.key] != null)).length;
  // A change made after the newest sample still shows (the axis stretches to it); markers older
  // than the first row (out of a bounded live window) do not stretch it back.
  const firstX = rows[0]?.x ?? 0;
  const lastX = Math.max(rows[rows.length - 1]?.x ?? 0, ...markers.map((m) => m.x));
  const shownMarkers = spreadLabels(
    markers.filter((m) => m.x >= firstX),
    (lastX - firstX) * LABEL_GAP,
  );
  const hasRight = lines.some((l) => l.axis === "right");
  return (
    <figure className="chart" data-testid={`chart-${id}`} data-points={points} data-markers={shownMarkers.length}>
      <figcaption className="chart-title">
        {title} <span className="muted">({unit}{hasRight && rightUnit ? ` · ${rightUnit} right` : ""})</span>
      </figcaption>
      {help && <p className="chart-help muted small">{help}</p>}
      {points === 0 ? (
        <div className="chart-empty" style={{ height }}>
          {emptyText ?? "No data for this chart yet."}
        </div>
      ) : (
        <ResponsiveContainer width="100%" height={height}>
          <LineChart data={rows as Row[]} syncId={syncId} margin={{ top: 8, right: onBrush ? 48 : 8, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
            <XAxis dataKey="x" type="number" domain={["dataMin", "dataMax"]} tickFormatter={tickTime} stroke="var(--muted)" fontSize={11} />
            <YAxis yAxisId="left" stroke="var(--muted)" fontSize={11} width={48} tickFormatter={(v: number) => formatNumber(v)} />
            {hasRight && <YAxis yAxisId="right" orientation="right" stroke="var(--muted)" fontSize={11} width={44} tickFormatter={(v: number) => formatNumber(v)} />}
            <Tooltip {...TIME_TOOLTIP} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {lines.map((line, i) => (
              <Line
                key={line.key}
                yAxisId={line.axis ?? "left"}
                type="linear"
                dataKey={line.key}
                name={line.label}
                stroke={line.color ?? colorAt(i)}
                strokeDasharray={line.dashed ? "5 4" : undefined}
                dot={false}
                strokeWidth={1.6}
                connectNulls
                isAnimationActive={false}
              />
            ))}
            {shownMarkers.map((m, i) => (
              <ReferenceLine
                key={`${m.x}-${i}`}
                yAxisId="left"
                x={m.x}
                ifOverflow="extendDomain"
                stroke={m.color ?? MARKER_COLOR}
                strokeDasharray="2 2"
                label={{ value: m.label, position: "insideTopLeft", fill: m.color ?? MARKER_COLOR, fontSize: 10 }}
              />
            ))}
            {onBrush && (
              <Brush
                dataKey="x"
                height={22}
                stroke="var(--accent)"
                fill="var(--surface)"
                tickFormatter={tickTime}
                onChange={(range) => {
                  const { startIndex, endIndex } = range as { startIndex?: number; endIndex?: number };
                  const a = startIndex !== undefined ? rows[startIndex] : undefined;
                  const b = endIndex !== undefined ? rows[endIndex] : undefined;
                  if (!a || !b) onBrush(null);
                  else if (startIndex === 0 && endIndex === rows.length - 1) onBrush(null);
                  else onBrush([a.x, b.x]);
                }}
              />
            )}
          </LineChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}
