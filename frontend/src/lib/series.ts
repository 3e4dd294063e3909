// Chart data transforms: samples -> rows of {x: elapsed seconds, key: value}, the chart set shown
// for a run, and config-change markers.
import { toMs } from "./format";
import { changeLabel, flatten } from "./knobs";
import { Gauge, Op, type Percentiles, type RunConfig, type RunEvent, type Sample } from "./types";

export type Row = { x: number } & Record<string, number | null>;

export interface LineSpec {
  key: string;
  label: string;
  pick: (s: Sample) => number | null;
  dashed?: boolean;
  axis?: "left" | "right";
}

export interface ChartSpec {
  id: string;
  title: string;
  unit: string;
  rightUnit?: string;
  lines: LineSpec[];
  /** What a line means when its title does not say (shown under the chart's title). */
  help?: string;
}

function num(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function latency(op: string, p: keyof Omit<Percentiles, "count">) {
  return (s: Sample) => num(s.latency?.[op]?.[p]);
}

/** Errors of one gRPC code per second: 0 in an interval that had other errors, none without any. */
export function errorsPerSecond(code: string) {
  return (s: Sample) => {
    const errors = s.errors_by_code ?? {};
    if (s.interval_s <= 0 || Object.keys(errors).length === 0) return null;
    return (errors[code] ?? 0) / s.interval_s;
  };
}

export function gauge(name: string, scale = 1) {
  return (s: Sample) => {
    const v = num(s.gauges?.[name]);
    return v === null ? null : v * scale;
  };
}

/** The watcher lag's definition (README, "Watcher lag"; workers/lag.py). */
export const WATCHER_LAG_HELP =
  "Watcher lag: the longest a change could wait, committed but not yet received, in the interval: from the start of a poll that read everything " +
  "to the end of the next one (the slowest watcher's). Keeping up, it is the poll interval plus one poll; it grows while the watcher falls behind.";

export const RUN_CHARTS: readonly ChartSpec[] = [
  {
    id: "throughput",
    title: "Throughput: target vs achieved",
    unit: "tx/s",
    rightUnit: "mutations/s",
    lines: [
      { key: "tps_target", label: "target tx/s", pick: gauge(Gauge.UPDATER_TARGET_TPS), dashed: true },
      { key: "tps", label: "achieved tx/s", pick: gauge(Gauge.UPDATER_TPS) },
      { key: "mutations_ps", label: "mutations/s (right)", pick: gauge(Gauge.UPDATER_MUTATIONS_PS), axis: "right" },
    ],
  },
  {
    id: "updater-latency",
    title: "Updater latency",
    unit: "ms",
    lines: [
      { key: "txn_p50", label: "p50", pick: latency(Op.UPDATER_TXN, "p50") },
      { key: "txn_p95", label: "p95", pick: latency(Op.UPDATER_TXN, "p95") },
      { key: "txn_p99", label: "p99", pick: latency(Op.UPDATER_TXN, "p99") },
      { key: "txn_intended_p99", label: "p99 from intended start", pick: latency(Op.UPDATER_TXN_INTENDED, "p99"), dashed: true },
    ],
  },
  {
    id: "notify",
    title: "Change-notification latency and watcher lag",
    unit: "ms",
    help: WATCHER_LAG_HELP,
    lines: [
      { key: "notify_p50", label: "notify p50", pick: latency(Op.WATCHER_NOTIFY, "p50") },
      { key: "notify_p99", label: "notify p99", pick: latency(Op.WATCHER_NOTIFY, "p99") },
      { key: "lag_ms", label: "watcher lag", pick: gauge(Gauge.WATCHER_LAG_MS), dashed: true },
    ],
  },
  {
    id: "poll",
    title: "Poll duration and rows per poll",
    unit: "ms",
    rightUnit: "rows",
    lines: [
      { key: "poll_p50", label: "poll p50", pick: latency(Op.WATCHER_POLL, "p50") },
      { key: "poll_p99", label: "poll p99", pick: latency(Op.WATCHER_POLL, "p99") },
      { key: "rows_per_poll", label: "rows/poll", pick: gauge(Gauge.WATCHER_ROWS_PER_POLL), axis: "right", dashed: true },
    ],
  },
  {
    id: "poll-server",
    title: "Poll time at the server (server-timing)",
    unit: "ms",
    lines: [
      { key: "poll_server_p50", label: "server p50", pick: latency(Op.WATCHER_POLL_SERVER, "p50") },
      { key: "poll_server_p99", label: "server p99", pick: latency(Op.WATCHER_POLL_SERVER, "p99") },
    ],
  },
  {
    id: "reader-latency",
    title: "Reader latency and rate",
    unit: "ms",
    rightUnit: "reads/s",
    lines: [
      { key: "read_p50", label: "p50", pick: latency(Op.READER_READ, "p50") },
      { key: "read_p95", label: "p95", pick: latency(Op.READER_READ, "p95") },
      { key: "read_p99", label: "p99", pick: latency(Op.READER_READ, "p99") },
      { key: "read_intended_p99", label: "p99 from intended start", pick: latency(Op.READER_READ_INTENDED, "p99"), dashed: true },
      { key: "rps", label: "reads/s (right)", pick: gauge(Gauge.READER_RPS), axis: "right" },
      { key: "rps_target", label: "target reads/s (right)", pick: gauge(Gauge.READER_TARGET_RPS), axis: "right", dashed: true },
    ],
  },
  {
    id: "sessions",
    title: "Session pool",
    unit: "sessions",
    lines: [
      { key: "sessions_in_use", label: "in use", pick: gauge(Gauge.SESSIONS_IN_USE) },
      { key: "sessions_idle", label: "idle", pick: gauge(Gauge.SESSIONS_IDLE) },
      { key: "sessions_waiting", label: "waiting", pick: gauge(Gauge.SESSIONS_WAITING) },
    ],
  },
  {
    id: "errors",
    title: "Errors by gRPC code, aborts and retries",
    unit: "per s",
    rightUnit: "workers",
    lines: [
      { key: "errors_ps", label: "all errors/s", pick: gauge(Gauge.ERRORS_PS) },
      { key: "unavailable_ps", label: "UNAVAILABLE/s", pick: errorsPerSecond("UNAVAILABLE") },
      { key: "deadline_exceeded_ps", label: "DEADLINE_EXCEEDED/s", pick: errorsPerSecond("DEADLINE_EXCEEDED") },
      { key: "aborted_ps", label: "ABORTED/s", pick: errorsPerSecond("ABORTED") },
      { key: "aborts_ps", label: "aborts/s", pick: gauge(Gauge.ABORTS_PS) },
      { key: "retries_ps", label: "retries/s", pick: gauge(Gauge.RETRIES_PS), dashed: true },
      { key: "workers_stalled", label: "stalled workers (right)", pick: gauge(Gauge.WORKERS_STALLED), axis: "right", dashed: true },
    ],
  },
  {
    id: "server-poll",
    title: "Server-side poll query stats (last minute)",
    unit: "ms",
    rightUnit: "CPU %",
    lines: [
      { key: "server_poll_ms", label: "avg latency", pick: gauge(Gauge.SERVER_POLL_AVG_LATENCY_S, 1000) },
      { key: "server_poll_cpu", label: "CPU", pick: gauge(Gauge.SERVER_POLL_CPU_FRACTION, 100), axis: "right", dashed: true },
    ],
  },
  {
    id: "server-txn",
    title: "Server-side commit stats (last minute)",
    unit: "ms",
    rightUnit: "participants",
    lines: [
      { key: "server_commit_ms", label: "avg commit latency", pick: gauge(Gauge.SERVER_TXN_AVG_COMMIT_LATENCY_S, 1000) },
      { key: "server_participants", label: "avg participants", pick: gauge(Gauge.SERVER_TXN_AVG_PARTICIPANTS), axis: "right", dashed: true },
    ],
  },
];

/** TPC-C's transaction types, in the order of the standard mix (45/43/4/4/4). */
export const TPCC_TYPES = ["new_order", "payment", "order_status", "delivery", "stock_level"] as const;
export const TPCC_TPMC = "tpcc.tpmc";

/** A TPC-C run's own charts: tpmC, and p50/p99 of each transaction type. */
export const TPCC_CHARTS: readonly ChartSpec[] = [
  {
    id: "tpcc-tpmc",
    title: "TPC-C: tpmC (committed New-Orders per minute) and transactions/s",
    unit: "tpmC",
    rightUnit: "tx/s",
    lines: [
      { key: "tpmc", label: "tpmC", pick: gauge(TPCC_TPMC) },
      { key: "tpcc_tps", label: "all types, tx/s (right)", pick: gauge(Gauge.UPDATER_TPS), axis: "right", dashed: true },
    ],
  },
  ...(["p50", "p99"] as const).map((p) => ({
    id: `tpcc-latency-${p}`,
    title: `TPC-C latency ${p} by transaction type`,
    unit: "ms",
    lines: TPCC_TYPES.map((t) => ({ key: `tpcc_${t}_${p}`, label: t.replace("_", "-"), pick: latency(`tpcc.${t}`, p) })),
  })),
];

/** Charts that mean nothing for a TPC-C run (it has no updater, watchers or readers of its own). */
const REPORT_ONLY = new Set(["updater-latency", "notify", "poll", "poll-server", "reader-latency", "server-poll"]);

/** The charts each report workload is about, first, in the order its report reads them. */
const LEAD: Partial<Record<NonNullable<RunConfig["workload"]>, readonly string[]>> = {
  change_watcher: ["throughput", "notify", "poll", "poll-server", "server-poll"],
  write_benchmark: ["throughput", "updater-latency", "reader-latency", "server-txn"],
  session_pool: ["sessions", "reader-latency", "updater-latency"],
  participants: ["server-txn", "updater-latency", "throughput"],
};

/** The charts of a run of this workload: TPC-C's own and the shared ones, or the reports' ones,
 * those its report is about first and those of parts that are off (`off`) last. */
export function chartsFor(workload: RunConfig["workload"] | undefined, off: ReadonlySet<string> = new Set()): readonly ChartSpec[] {
  if (workload === "tpcc") return [...TPCC_CHARTS, ...RUN_CHARTS.filter((c) => !REPORT_ONLY.has(c.id) && c.id !== "throughput")];
  const lead = (workload && LEAD[workload]) ?? [];
  const rank = (c: ChartSpec) => (off.has(c.id) ? 2 : lead.includes(c.id) ? 0 : 1);
  return [...RUN_CHARTS].sort((a, b) => rank(a) - rank(b) || (rank(a) === 0 ? lead.indexOf(a.id) - lead.indexOf(b.id) : 0));
}

/** The 2PC participants chart leads a participants run (a run of the built-in participants definition
 * or its PostgreSQL twin, as the 2pc-* presets are, or one stored before the switch to definitions);
 * in other runs it follows the workload's charts. */
export function participantsFirst(config: Pick<RunConfig, "workload" | "definition_origin"> | null | undefined): boolean {
  if (config?.workload === "participants") return true;
  const origin = config?.definition_origin;
  return config?.workload === "definition" && origin?.source === "builtin" && (origin.definition === "participants" || origin.definition === "participants_pg");
}

/** The parts of the load a config can switch off, with their charts and why those stay empty. */
const PARTS: readonly { on: (c: RunConfig) => boolean; charts: readonly string[]; why: string }[] = [
  { on: (c) => c.reader.enabled, charts: ["reader-latency"], why: "Readers are off in this run." },
  { on: (c) => c.updater.enabled, charts: ["updater-latency", "throughput"], why: "The updater is off in this run." },
  { on: (c) => c.watcher.enabled, charts: ["notify", "poll", "poll-server", "server-poll"], why: "Watchers are off in this run." },
];

/** Why a chart of a run with this config stays empty, by chart id. */
export function emptyReasons(config: RunConfig | null): Partial<Record<string, string>> {
  if (!config) return {};
  const out: Partial<Record<string, string>> = {};
  for (const part of PARTS) if (!part.on(config)) for (const id of part.charts) out[id] = part.why;
  if (config.target.kind !== "local" && config.target.kind !== "cloud") {
    out["server-poll"] = out["server-txn"] = "This target reports no SPANNER_SYS statistics.";
  }
  out.errors = "No errors or aborts so far.";
  return out;
}

/** The charts whose part of the load is off in this config: zeros there say nothing, so such a chart
 * is drawn only when some line is not zero (the part was on earlier in the run). */
export function offCharts(config: RunConfig | null): ReadonlySet<string> {
  return new Set(config ? PARTS.filter((p) => !p.on(config)).flatMap((p) => p.charts) : []);
}

/** True when some row has a value other than zero for one of the chart's lines. */
export function hasSignal(rows: readonly Row[], chart: ChartSpec): boolean {
  return rows.some((r) => chart.lines.some((l) => r[l.key] != null && r[l.key] !== 0));
}

/** One row per sample, with every line of every chart picked out. */
export function toRows(samples: readonly Sample[], charts: readonly ChartSpec[] = [...RUN_CHARTS, ...TPCC_CHARTS]): Row[] {
  return samples.map((s) => {
    const row: Row = { x: s.elapsed_s };
    for (const chart of charts) for (const line of chart.lines) row[line.key] = line.pick(s);
    return row;
  });
}

/** True when some row has a value for one of the chart's lines (charts without data say so). */
export function hasData(rows: readonly Row[], chart: ChartSpec): boolean {
  return rows.some((r) => chart.lines.some((l) => r[l.key] != null));
}

export interface Marker {
  x: number;
  label: string;
  /** Defaults to the marker colour; the compare page colours each run's markers as its line. */
  color?: string;
}

/** Unix seconds at which the run started, as seen from its samples. */
export function runStart(samples: readonly Sample[]): number | null {
  const first = samples[0];
  return first ? first.t - first.elapsed_s : null;
}

function eventTime(event: RunEvent): number | null {
  const ms = toMs(event.t);
  return ms === null ? null : ms / 1000;
}

export function eventChanges(event: RunEvent): Record<string, unknown> {
  return event.changes ? flatten(event.changes) : {};
}

export function isConfigChange(event: RunEvent): boolean {
  return event.kind === "config_change";
}

/** The run's target (the local Spanner) went down, or came back. */
export function isTargetEvent(event: RunEvent): boolean {
  return event.kind === "target_down" || event.kind === "target_up";
}

export const TARGET_DOWN_COLOR = "#dc2626";
export const TARGET_UP_COLOR = "#16a34a";

/** The watch switched between polling and its change stream (issue 29). */
export function isWatchSwitch(event: RunEvent): boolean {
  return event.kind === "watch_mode";
}

function markerOf(event: RunEvent): Omit<Marker, "x"> {
  if (isWatchSwitch(event)) return { label: `watch: ${String(event.changes?.mode ?? "?")}` };
  if (event.kind === "target_down") return { label: "target down", color: TARGET_DOWN_COLOR };
  if (event.kind === "target_up") return { label: "target up", color: TARGET_UP_COLOR };
  return { label: changeLabel(eventChanges(event)) || "config change" };
}

/** A vertical marker for each config change, each switch of the watch's mode and each time the target went down or came back,
 * placed at its elapsed time; and one where the run's warm-up ends (config warmup_s: the intervals
 * before it are charted but left out of the summary, the compare and thresholds). */
export function configMarkers(events: readonly RunEvent[], samples: readonly Sample[]): Marker[] {
  const start = runStart(samples);
  const markers: Marker[] = [];
  for (const event of events) {
    if (!isConfigChange(event) && !isTargetEvent(event) && !isWatchSwitch(event)) continue;
    let x = typeof event.elapsed_s === "number" ? event.elapsed_s : null;
    if (x === null && start !== null) {
      const t = eventTime(event);
      if (t !== null) x = t - start;
    }
    if (x === null) continue;
    markers.push({ x: Math.max(0, x), ...markerOf(event) });
  }
  const warm = samples.filter((s) => s.warmup === true);
  if (warm.length > 0) markers.push({ x: Math.max(...warm.map((s) => s.elapsed_s)), label: WARMUP_ENDS });
  return markers;
}

/** The marker at the end of the last warm-up interval. */
export const WARMUP_ENDS = "warm-up ends";

/** Markers closer together than `gap` (in x units) would print their labels over each other (a
 * target down and up half a second apart): the first of such a run carries every label, joined,
 * and the others draw their line without one. Sorted by x. */
export function spreadLabels(markers: readonly Marker[], gap: number): Marker[] {
  const out: Marker[] = [];
  let head: Marker | null = null;
  for (const m of [...markers].sort((a, b) => a.x - b.x)) {
    const prev = out[out.length - 1];
    if (head && prev && m.x - prev.x < gap) {
      head.label = `${head.label} · ${m.label}`;
      out.push({ ...m, label: "" });
    } else {
      head = { ...m };
      out.push(head);
    }
  }
  return out;
}

/** Keep the rows whose x lies in [from, to] (a zoom range). */
export function clip(rows: readonly Row[], range: readonly [number, number] | null): Row[] {
  if (!range) return rows as Row[];
  const [from, to] = range;
  return rows.filter((r) => r.x >= from && r.x <= to);
}
