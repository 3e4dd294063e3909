// The 2PC-participants view: a commit's average participants, its latency at the client and at the
// server, and the server's CPU, on one time axis. The server figures come per interval from the
// local Spanner's running totals (server.commit_* and server.cpu_* gauges); other targets have none,
// and the chart is then not shown.
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { TIME_TOOLTIP } from "./chartStyle";
import { colorAt } from "./palette";
import { formatDuration, formatNumber } from "@/lib/format";
import type { ParticipantsRow } from "@/lib/participants";

interface Series {
  key: keyof ParticipantsRow;
  label: string;
  axis: "ms" | "participants" | "cpu";
  dashed?: boolean;
}

const SERIES: readonly Series[] = [
  { key: "client_ms", label: "commit p50, client (ms)", axis: "ms" },
  { key: "server_timing_ms", label: "commit p50, server-timing (ms)", axis: "ms", dashed: true },
  { key: "server_commit_ms", label: "avg commit, server (ms)", axis: "ms" },
  { key: "participants", label: "avg participants", axis: "participants" },
  { key: "splits", label: "splits", axis: "participants", dashed: true },
  { key: "cpu_pct", label: "server CPU (%)", axis: "cpu" },
  { key: "cpu_per_commit_ms", label: "server CPU per commit (ms)", axis: "ms", dashed: true },
];

/** `when` heads the latest figures: "now" on the live page, "at the end" for a finished run. */
export function ParticipantsChart({ rows, syncId, height = 300, when = "now" }: { rows: readonly ParticipantsRow[]; syncId?: string; height?: number; when?: string }) {
  const latest = [...rows].reverse().find((r) => r.participants !== null);
  return (
    <figure className="chart participants-chart" data-testid="chart-participants" data-points={rows.filter((r) => r.participants !== null).length}>
      <figcaption className="chart-title">
        Participants, commit latency and server CPU{" "}
        <span className="muted">
          (ms left · participants and splits, CPU % right)
          {latest && (
            <span data-testid="participants-latest">
              {" "}
              {when} {formatNumber(latest.participants, 2)} participants over {formatNumber(latest.splits, 0)} splits, commit {formatNumber(latest.server_commit_ms, 1)} ms at the server, CPU {formatNumber(latest.cpu_pct, 1)} %
            </span>
          )}
        </span>
      </figcaption>
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={rows as ParticipantsRow[]} syncId={syncId} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
          <XAxis dataKey="x" type="number" domain={["dataMin", "dataMax"]} tickFormatter={(x: number) => formatDuration(x)} stroke="var(--muted)" fontSize={11} />
          <YAxis yAxisId="ms" stroke="var(--muted)" fontSize={11} width={44} tickFormatter={(v: number) => formatNumber(v)} />
          <YAxis yAxisId="participants" orientation="right" stroke="var(--muted)" fontSize={11} width={32} allowDecimals={false} domain={[0, "dataMax + 1"]} />
          <YAxis yAxisId="cpu" orientation="right" stroke="var(--muted)" fontSize={11} width={40} tickFormatter={(v: number) => `${formatNumber(v)}%`} />
          <Tooltip {...TIME_TOOLTIP} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {SERIES.map((s, i) => (
            <Line
              key={s.key}
              yAxisId={s.axis}
              type="linear"
              dataKey={s.key}
              name={s.label}
              stroke={colorAt(i)}
              strokeDasharray={s.dashed ? "5 4" : undefined}
              dot={false}
              strokeWidth={1.6}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
