// GET /api/compare, normalized into what the page shows.
import { api } from "@/lib/api";
import type { CompareRunSummary, ComparePublic, ConfigDiffEntry, CompareSeries, MetricDelta, RunPublic, Sample } from "@/lib/types";

export const MIN_RUNS = 2;
export const MAX_RUNS = 6;

export function parseIds(text: string | null): string[] {
  if (!text) return [];
  return [...new Set(text.split(",").map((s) => s.trim()).filter(Boolean))];
}

export interface Comparison {
  runs: RunPublic[];
  diff: ConfigDiffEntry[];
  series: CompareSeries[];
  /** metric -> one cell per run (in run order); the first run is the baseline. */
  metrics: { name: string; cells: MetricDelta[] }[];
}

function asNumber(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function toDelta(v: unknown): MetricDelta {
  if (typeof v === "number") return { value: v, delta: null, percent: null };
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return { value: asNumber(o.value), delta: asNumber(o.delta), percent: asNumber(o.percent ?? o.percent_change ?? o.pct) };
  }
  return { value: null, delta: null, percent: null };
}

function diffEntries(raw: unknown, runs: number): ConfigDiffEntry[] {
  if (Array.isArray(raw)) {
    return raw
      .filter((d): d is Record<string, unknown> => !!d && typeof d === "object")
      .map((d) => ({ field: String(d.field ?? d.path ?? d.name), values: Array.isArray(d.values) ? d.values : [] }));
  }
  if (raw && typeof raw === "object") {
    return Object.entries(raw as Record<string, unknown>).map(([field, values]) => ({
      field,
      values: Array.isArray(values) ? values : Array.from({ length: runs }, () => values),
    }));
  }
  return [];
}

function seriesList(raw: unknown, runs: RunPublic[]): CompareSeries[] {
  if (Array.isArray(raw)) {
    return raw.map((s, i) => {
      if (Array.isArray(s)) return { run_id: runs[i]?.id ?? String(i), samples: s as Sample[] };
      const o = s as Record<string, unknown>;
      return { run_id: String(o.run_id ?? runs[i]?.id ?? i), samples: (o.samples ?? o.data ?? []) as Sample[] };
    });
  }
  if (raw && typeof raw === "object") {
    const map = raw as Record<string, unknown>;
    return runs.map((r) => ({ run_id: r.id, samples: (map[r.id] ?? []) as Sample[] }));
  }
  return [];
}

/** Turn the API's answer into per-metric rows of cells, in the order of `runs`. */
export function normalizeComparison(payload: ComparePublic): Comparison {
  const runs = payload.runs ?? [];
  const summaries = (payload.summaries ?? []) as CompareRunSummary[];
  const byRun = new Map(summaries.map((s, i) => [s.run_id ?? runs[i]?.id, s]));
  const names: string[] = [];
  for (const s of summaries) for (const name of Object.keys(s.metrics ?? {})) if (!names.includes(name)) names.push(name);
  const metrics = names.map((name) => ({
    name,
    cells: runs.map((r, i) => toDelta((byRun.get(r.id) ?? summaries[i])?.metrics?.[name])),
  }));
  return { runs, diff: diffEntries(payload.config_diff, runs.length), series: seriesList(payload.series, runs), metrics };
}

export async function fetchComparison(ids: readonly string[], signal?: AbortSignal): Promise<Comparison> {
  return normalizeComparison(await api.compare(ids, signal));
}
