// Typed fixtures for unit tests (never used by the app).
import { DEFAULT_CONFIG } from "@/lib/knobs";
import type { Breakdown, RunEvent, RunPublic, Sample, Summary } from "@/lib/types";

export const T0 = 1_800_000_000;

/** A breakdown whose parts add up to its round trip (ms): queue, session wait, client, server. */
export function makeBreakdown(queue: number, session: number, client: number, server: number, count = 10): Breakdown {
  return {
    count,
    round_trip_ms: queue + session + client + server,
    parts: [
      { part: "queue", ms: queue, source: "measured" },
      { part: "session_wait", ms: session, source: session > 0 ? "measured" : "not_applicable" },
      { part: "client", ms: client, source: "derived" },
      { part: "server", ms: server, source: "measured" },
    ],
  };
}

export function makeSample(seq: number, overrides: Partial<Sample> = {}): Sample {
  return {
    seq,
    t: T0 + seq + 1,
    elapsed_s: seq + 1,
    interval_s: 1,
    latency: {
      "updater.txn": { count: 10, p50: 2 + seq, p90: 3, p95: 4, p99: 5 + seq, p999: 6, max: 7, mean: 2.5 },
      "updater.txn_intended": { count: 10, p50: 3, p90: 4, p95: 5, p99: 9, p999: 10, max: 11, mean: 3.5 },
      "watcher.notify": { count: 50, p50: 40, p90: 60, p95: 70, p99: 90, p999: 95, max: 99, mean: 45 },
    },
    gauges: { "updater.target_tps": 10, "updater.tps": 9.5 + seq, "updater.mutations_ps": 50, "sessions.in_use": 3 },
    totals: { transactions: 10 * (seq + 1), mutations: 50 * (seq + 1), received_changes: 48 * (seq + 1), polls: seq + 1, reads: 0, errors: 0, aborts: 0 },
    errors_by_code: {},
    by_worker: { "0": { "updater.tps": 9.5 + seq, "updater.target_tps": 10 } },
    hdr: {},
    breakdown: { "updater.txn": makeBreakdown(1, 0, 1.5 + seq, 1) },
    warmup: false,
    ...overrides,
  };
}

export function makeSummary(overrides: Partial<Summary> = {}): Summary {
  return {
    duration_s: 60,
    warmup_s: 0,
    latency: { "updater.txn": { count: 600, p50: 2, p90: 3, p95: 4, p99: 8, p999: 9, max: 12, mean: 2.4 } },
    rates: { "updater.tps": 9.9 },
    unavailable: {},
    totals: { transactions: 600, mutations: 3000, received_changes: 2990, polls: 60, reads: 0, errors: 0, aborts: 0 },
    errors_by_code: {},
    reconciliation: {
      keys_written: 100,
      final_versions_received: 100,
      final_versions_missing: 0,
      duplicates: 0,
      superseded_unseen: 3,
      ok: true,
      versions_written: 103,
      versions_received: 100,
      unexpected: 0,
      uncertain_keys: 0,
      foreign_changes: 0,
    missing_keys: [],
      detail: "",
    },
    workers: [{ index: 0, runtime: "python", pid: 4242, host: "box", node: null, operations: 660, cpu_s: 0.99, cpu_ms_per_op: 1.5 }],
    stop: { graceful: true, grace_s: 30, killed_workers: [], detail: "" },
    breakdown: { "updater.txn": makeBreakdown(1, 0, 1.4, 1, 600) },
    tpcc: null,
    capacity: null,
    ...overrides,
  };
}

export function makeRun(id: string, overrides: Partial<RunPublic> = {}): RunPublic {
  return {
    id,
    name: `run ${id}`,
    preset: "light",
    status: "finished",
    target_kind: "local",
    config: { ...DEFAULT_CONFIG, preset: "light" },
    current_config: { ...DEFAULT_CONFIG, preset: "light" },
    live_changes: [],
    created_at: new Date(T0 * 1000).toISOString(),
    started_at: new Date(T0 * 1000).toISOString(),
    ended_at: new Date((T0 + 60) * 1000).toISOString(),
    duration_s: 60,
    failure_reason: null,
    config_problem: null,
    sample_count: 60,
    notes: "",
    tags: [],
    headline: { achieved_tps: 9.9, updater_p99_ms: 8, notify_p50_ms: 40, reads_p99_ms: null },
    summary: makeSummary(),
    ...overrides,
  };
}

export function configEvent(elapsed: number, changes: Record<string, unknown>, id = elapsed): RunEvent {
  return { id, kind: "config_change", t: new Date((T0 + elapsed) * 1000).toISOString(), elapsed_s: elapsed, who: "ui", changes };
}

export function statusEvent(elapsed: number, status: string, t = new Date((T0 + elapsed) * 1000).toISOString()): RunEvent {
  return { id: null, kind: "status", t, elapsed_s: elapsed, who: null, changes: { status } };
}

export function targetEvent(elapsed: number, up: boolean, changes: Record<string, unknown> = {}): RunEvent {
  const kind = up ? "target_up" : "target_down";
  return { id: null, kind, t: new Date((T0 + elapsed) * 1000).toISOString(), elapsed_s: elapsed, who: null, changes };
}

export function watchEvent(elapsed: number, changes: Record<string, unknown>): RunEvent {
  return { id: null, kind: "watch_mode", t: new Date((T0 + elapsed) * 1000).toISOString(), elapsed_s: elapsed, who: null, changes };
}

/** A fetch stub answering JSON per "METHOD path" (path without the /api prefix and query). */
export function fetchStub(routes: Record<string, (url: URL, init?: RequestInit) => { status?: number; body?: unknown }>) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), "http://localhost");
    const key = `${init?.method ?? "GET"} ${url.pathname.replace(/^\/api/, "")}`;
    const handler = routes[key];
    if (!handler) return new Response(JSON.stringify({ detail: `no stub for ${key}` }), { status: 404 });
    const { status = 200, body } = handler(url, init);
    return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  };
}
