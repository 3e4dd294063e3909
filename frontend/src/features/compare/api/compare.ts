// The answer of GET /api/compare (lib/api/compare.ts), shaped for the page: per-metric cells and chart rows per series name.
import { colorAt } from "@/components/palette";
import { changeLabel } from "@/lib/knobs";
import { eventChanges, isConfigChange, type Marker, type Row } from "@/lib/series";
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
}

export interface MetricRow {
  name: string;
  better: "lower" | "higher" | null;
  /** One cell per run, in run order; the first run is the baseline. */
  cells: MetricCell[];
}

/** The headline metrics of the summary table, in this order, with their names; the rest follow. */
export const KEY_METRICS: Record<string, string> = {
  "rates.updater.tps": "achieved tx/s",
  "rates.updater.mutations_ps": "mutations/s",
  "latency.updater.txn.p50": "updater latency p50 (ms)",
  "latency.updater.txn.p99": "updater latency p99 (ms)",
  "latency.updater.txn_intended.p99": "updater p99 from intended start (ms)",
  "latency.watcher.notify.p50": "change notification p50 (ms)",
  "latency.watcher.notify.p99": "change notification p99 (ms)",
  "latency.watcher.poll.p50": "poll duration p50 (ms)",
  "rates.watcher.changes_ps": "changes received/s",
  "latency.reader.read.p50": "reader latency p50 (ms)",
  "latency.reader.read.p99": "reader latency p99 (ms)",
  "rates.reader.rps": "reads/s",
  "rates.errors_ps": "errors/s",
  "rates.aborts_ps": "aborts/s",
};
const FIRST = Object.keys(KEY_METRICS);

export function metricRows(payload: ComparePublic): MetricRow[] {
  const rows = (payload.metrics ?? []).map((m) => ({
    name: m.metric,
    better: m.better,
    cells: payload.runs.map((_, i) => ({ value: m.values[i] ?? null, delta: m.delta[i] ?? null, percent: m.percent_change[i] ?? null })),
  }));
  const rank = (name: string) => {
    const i = FIRST.indexOf(name);
    return i === -1 ? FIRST.length : i;
  };
  return rows.map((r, i) => ({ r, i })).sort((a, b) => rank(a.r.name) - rank(b.r.name) || a.i - b.i).map(({ r }) => r);
}

/** Chart rows for one series name: {x: elapsed, r0: run 0's value, r1: ...}. */
export function compareRows(series: CompareSeries, name: string): Row[] {
  return series.elapsed_s.map((x, k) => {
    const row: Row = { x };
    series.runs.forEach((run, i) => {
      row[`r${i}`] = run.values[name]?.[k] ?? null;
    });
    return row;
  });
}

/** Each run's live config changes as markers in its line's colour, labelled with its number. */
export function compareMarkers(timelines: readonly (readonly RunEvent[])[]): Marker[] {
  return timelines.flatMap((events, i) =>
    events
      .filter(isConfigChange)
      .map((e) => ({ x: e.elapsed_s, label: `#${i + 1} ${changeLabel(eventChanges(e))}`, color: colorAt(i) })),
  );
}
