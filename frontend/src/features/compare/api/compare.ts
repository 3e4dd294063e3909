// The answer of GET /api/compare (lib/api/compare.ts), shaped for the page: per-metric cells and chart rows per series name.
import { colorAt } from "@/components/palette";
import type { ChartLine } from "@/components/TimeChart";
import { OpMetric, opMetric } from "@/lib/api/names.gen";
import { changeLabel } from "@/lib/knobs";
import { eventChanges, isConfigChange, isTargetEvent, type Marker, type Row } from "@/lib/series";
import type { ComparePublic, CompareSeries, RunEvent } from "@/lib/types";

export const MIN_RUNS = 2;
export const MAX_RUNS = 6;

export function parseIds(text: string | null): string[] {
  if (!text) return [];
  return [...new Set(text.split(",").map((s) => s.trim()).filter(Boolean))];
}

export interface MetricCell {
  value: number | null;
  delta: number | null;
  percent: number | null;
  /** How far the delta's 99 % interval (both runs' interval-to-interval noise) reaches towards zero; null: not told. */
  uncertainty: number | null;
  /** The delta lies beyond that noise; null: not assessed (baseline, totals, too few intervals). */
  significant: boolean | null;
  /** Why the run has no value, where it says (e.g. no complete SPANNER_SYS minute). */
  unavailable: string | null;
}

export interface MetricRow {
  name: string;
  /** Multiplies the API's values into the unit shown (server latencies: seconds -> ms); cells keep the API's numbers. */
  scale: number;
  /** The API's words for a key figure; null for the others. */
  label: string | null;
  better: "lower" | "higher" | null;
  /** One cell per run, in run order; the first run is the baseline. */
  cells: MetricCell[];
}

/** Server latencies come in seconds (``rates.server.*_latency_s``); the table shows them in ms as every other latency. */
export function scaleCell(cell: MetricCell, scale: number): MetricCell {
  const k = (v: number | null) => (v === null ? null : v * scale);
  return { ...cell, value: k(cell.value), delta: k(cell.delta), uncertainty: k(cell.uncertainty) };
}

export function metricScale(metric: string): number {
  return metric.endsWith("latency_s") ? 1000 : 1;
}

/** Every metric, the compared workloads' key figures first (in the API's order), the rest as they come. */
export function metricRows(payload: ComparePublic): MetricRow[] {
  const keys = payload.key_metrics ?? [];
  const labels = new Map(keys.map((k) => [k.metric, k.label]));
  const rows = (payload.metrics ?? []).map((m) => ({
    name: m.metric,
    scale: metricScale(m.metric),
    label: labels.get(m.metric) ?? null,
    better: m.better,
    cells: payload.runs.map((_, i) => ({
      value: m.values[i] ?? null,
      delta: m.delta[i] ?? null,
      percent: m.percent_change[i] ?? null,
      uncertainty: m.uncertainty?.[i] ?? null,
      significant: m.significant?.[i] ?? null,
      unavailable: m.unavailable?.[i] ?? null,
    })),
  }));
  const first = keys.map((k) => k.metric);
  const rank = (name: string) => {
    const i = first.indexOf(name);
    return i === -1 ? first.length : i;
  };
  return rows.map((r, i) => ({ r, i })).sort((a, b) => rank(a.r.name) - rank(b.r.name) || a.i - b.i).map(({ r }) => r);
}

/** Chart rows for one series name: {x: elapsed, r0: run 0's value, r1: ...}, each value times ``scale``. */
export function compareRows(series: CompareSeries, name: string, scale = 1): Row[] {
  return series.elapsed_s.map((x, k) => {
    const row: Row = { x };
    series.runs.forEach((run, i) => {
      const value = run.values[name]?.[k];
      row[`r${i}`] = value == null ? null : value * scale;
    });
    return row;
  });
}

export interface CompareChartSpec {
  id: string;
  title: string;
  unit: string;
  /** Series name as the API flattens samples (store/series.py). */
  series: string;
  /** Multiplies the stored value into ``unit`` (server latencies come in seconds, charts show ms). */
  scale?: number;
}

export const COMPARE_CHARTS: readonly CompareChartSpec[] = [
  { id: "cmp-tpmc", title: "TPC-C tpmC", unit: "tpmC", series: "gauges.tpcc.tpmc" },
  { id: "cmp-new-order-p99", title: "TPC-C New-Order latency p99", unit: "ms", series: "latency.tpcc.new_order.p99" },
  { id: "cmp-payment-p99", title: "TPC-C Payment latency p99", unit: "ms", series: "latency.tpcc.payment.p99" },
  { id: "cmp-tps", title: "Achieved transactions/s", unit: "tx/s", series: "gauges.updater.tps" },
  { id: "cmp-updater-p99", title: "Updater latency p99", unit: "ms", series: "latency.updater.txn.p99" },
  { id: "cmp-updater-p50", title: "Updater latency p50", unit: "ms", series: "latency.updater.txn.p50" },
  { id: "cmp-notify-p50", title: "Change-notification latency p50", unit: "ms", series: "latency.watcher.notify.p50" },
  { id: "cmp-lag", title: "Watcher lag", unit: "ms", series: "gauges.watcher.lag_ms" },
  { id: "cmp-poll-p50", title: "Poll duration p50", unit: "ms", series: "latency.watcher.poll.p50" },
  { id: "cmp-rows", title: "Rows per poll", unit: "rows", series: "gauges.watcher.rows_per_poll" },
  { id: "cmp-reader-p99", title: "Reader latency p99", unit: "ms", series: "latency.reader.read.p99" },
  { id: "cmp-reads", title: "Achieved reads/s", unit: "reads/s", series: "gauges.reader.rps" },
  { id: "cmp-sessions", title: "Sessions in use", unit: "sessions", series: "gauges.sessions.in_use" },
  { id: "cmp-errors", title: "Errors/s", unit: "per s", series: "gauges.errors_ps" },
  { id: "cmp-aborts", title: "Aborts/s", unit: "per s", series: "gauges.aborts_ps" },
  { id: "cmp-server-commit", title: "Server-side avg commit latency", unit: "ms", series: "gauges.server.txn_avg_commit_latency_s", scale: 1000 },
  { id: "cmp-server-poll", title: "Server-side avg poll latency", unit: "ms", series: "gauges.server.poll_avg_latency_s", scale: 1000 },
];

/** The compare charts that have data in some run, with their rows in the chart's unit. */
export function compareCharts(series: CompareSeries): (CompareChartSpec & { rows: Row[] })[] {
  return COMPARE_CHARTS.map((c) => ({ ...c, rows: compareRows(series, c.series, c.scale) })).filter((c) =>
    c.rows.some((r) => series.runs.some((_, i) => r[`r${i}`] != null)),
  );
}

export interface OperationOverlay {
  id: string;
  title: string;
  rows: Row[];
  lines: ChartLine[];
}

/** Runs of definitions: each operation that two or more of the runs have (by name, from each run's
 * definition) gets one chart, a line per run of its achieved throughput (left axis, /s) and of its
 * p99 (right axis, ms, dashed), in the run's colour and labelled by the run; one that no run ran (an
 * operation left off) is not drawn. ``operations``: each run's operation names, in run order (none
 * for a run that is not a definition's). */
export function operationOverlays(series: CompareSeries, operations: readonly (readonly string[])[], labels: readonly string[]): OperationOverlay[] {
  const shared = [...new Set(operations.flat())].filter((op) => operations.filter((ops) => ops.includes(op)).length >= 2);
  return shared.map((op) => {
    const achieved = `gauges.${opMetric(OpMetric.PS, op)}`;
    const p99 = `latency.${opMetric(OpMetric.LATENCY, op)}.p99`;
    const runs = series.runs.map((_, i) => i).filter((i) => operations[i]?.includes(op));
    const rows = series.elapsed_s.map((x, k) => {
      const row: Row = { x };
      for (const i of runs) {
        row[`t${i}`] = series.runs[i]?.values[achieved]?.[k] ?? null;
        row[`p${i}`] = series.runs[i]?.values[p99]?.[k] ?? null;
      }
      return row;
    });
    const lines = runs.flatMap((i): ChartLine[] => {
      const label = labels[i] ?? series.runs[i]?.run_id ?? `#${i + 1}`;
      return [
        { key: `t${i}`, label: `${label} achieved/s`, color: colorAt(i) },
        { key: `p${i}`, label: `${label} p99`, color: colorAt(i), dashed: true, axis: "right" },
      ];
    });
    return { id: `cmp-op-${op}`, title: `${op}: achieved throughput and p99`, rows, lines };
  }).filter((o) => o.rows.some((r) => Object.entries(r).some(([key, v]) => key !== "x" && v != null)));
}

/** Each run's live config changes and target outages as markers in its line's colour, labelled with its number. */
export function compareMarkers(timelines: readonly (readonly RunEvent[])[]): Marker[] {
  const label = (e: RunEvent) => (isConfigChange(e) ? changeLabel(eventChanges(e)) : e.kind === "target_down" ? "target down" : "target up");
  return timelines.flatMap((events, i) =>
    events
      .filter((e) => isConfigChange(e) || isTargetEvent(e))
      .map((e) => ({ x: e.elapsed_s, label: `#${i + 1} ${label(e)}`, color: colorAt(i) })),
  );
}
