// Where the time goes (issue 15): samples' per-operation breakdowns -> chart rows and percentage
// bars. Works for any operation kind the backend reports (updater.txn, reader.read, tpcc.*, ...).
import type { Breakdown, Part, PartSource, Sample } from "./types";

export const PART_ORDER: readonly Part[] = ["queue", "session_wait", "pgadapter", "client", "server", "server_frontend", "query_commit"];

export const PART_LABELS: Record<Part, string> = {
  queue: "queue behind the pacer",
  session_wait: "session wait",
  pgadapter: "PGAdapter (derived)",
  client: "client library and network",
  server: "server",
  server_frontend: "server front end",
  query_commit: "query / commit",
};

export const PART_COLORS: Record<Part, string> = {
  queue: "#94a3b8",
  session_wait: "#ef4444",
  pgadapter: "#a855f7",
  client: "#f59e0b",
  server: "#3b82f6",
  server_frontend: "#6366f1",
  query_commit: "#10b981",
};

/** Footnotes of the parts that need one, shown under a legend that has the part. */
export const PART_NOTES: Partial<Record<Part, string>> = {
  pgadapter:
    "PGAdapter (derived): the driver's round trip less the queue and what the server measured of the same statements (SPANNER_SYS), " +
    "each whole minute of the run's measured phase pricing that minute's own statements; the run's figure is over the operations of those minutes. " +
    "Until SPANNER_SYS has such a minute (and in a single interval, whose minute has not closed), nothing of the server is known and it holds everything after the queue.",
};

/** The footnotes of these parts, in PART_ORDER. */
export function partNotes(parts: readonly Part[]): { part: Part; note: string }[] {
  return PART_ORDER.flatMap((part) => {
    const note = PART_NOTES[part];
    return note && parts.includes(part) ? [{ part, note }] : [];
  });
}

export const SOURCE_LABELS: Record<PartSource, string> = {
  measured: "measured",
  derived: "derived",
  spanner_sys: "SPANNER_SYS",
  not_applicable: "not applicable",
  not_measured: "not measured",
};

export const SERVER_SUFFIX = "_server";

/** Keys of a breakdown row besides the parts: client and server latency percentiles (ms). */
export const LATENCY_LINES = [
  { key: "client_p50", label: "client p50", color: "#0f172a", dashed: false },
  { key: "client_p99", label: "client p99", color: "#0f172a", dashed: true },
  { key: "server_p50", label: "server p50", color: "#1d4ed8", dashed: false },
  { key: "server_p99", label: "server p99", color: "#1d4ed8", dashed: true },
] as const;

export type BreakdownRow = { x: number } & Partial<Record<Part | (typeof LATENCY_LINES)[number]["key"], number | null>>;

/** The operation kinds that have a breakdown in any of the samples, in name order. */
export function breakdownOps(samples: readonly Sample[]): string[] {
  const ops = new Set<string>();
  for (const s of samples) for (const [op, b] of Object.entries(s.breakdown ?? {})) if (b.count > 0) ops.add(op);
  return [...ops].sort();
}

/** The parts that appear in any of these breakdowns, in PART_ORDER. */
export function partsIn(breakdowns: readonly (Breakdown | undefined)[]): Part[] {
  const seen = new Set<Part>();
  for (const b of breakdowns) for (const p of b?.parts ?? []) seen.add(p.part);
  return PART_ORDER.filter((p) => seen.has(p));
}

function num(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** One row per sample of one operation kind: its mean parts (stacked) and its client and server
 * latency p50/p99 (client: from the actual start, as the application sees it). */
export function breakdownRows(samples: readonly Sample[], op: string): BreakdownRow[] {
  return samples.map((s) => {
    const row: BreakdownRow = { x: s.elapsed_s };
    const b = s.breakdown?.[op];
    if (b && b.count > 0) for (const p of b.parts) row[p.part] = p.ms;
    const client = s.latency?.[op];
    const server = s.latency?.[op + SERVER_SUFFIX];
    row.client_p50 = num(client?.p50);
    row.client_p99 = num(client?.p99);
    row.server_p50 = num(server?.p50);
    row.server_p99 = num(server?.p99);
    return row;
  });
}

export interface Share {
  part: Part;
  ms: number;
  pct: number;
  source: PartSource;
}

/** Each part's share of the round trip, in PART_ORDER (the report's percentage bar). */
export function shares(b: Breakdown | undefined): Share[] {
  if (!b || b.count === 0) return [];
  const total = b.parts.reduce((sum, p) => sum + p.ms, 0);
  return PART_ORDER.flatMap((part) => {
    const p = b.parts.find((q) => q.part === part);
    return p ? [{ part, ms: p.ms, pct: total > 0 ? (100 * p.ms) / total : 0, source: p.source }] : [];
  });
}

/** The breakdown from the actual start: without the queue behind the pacer, the parts of the
 * latency the application sees (session wait, client library and network, server). */
export function fromActualStart(b: Breakdown | undefined): Breakdown | undefined {
  if (!b) return undefined;
  const queue = b.parts.find((p) => p.part === "queue")?.ms ?? 0;
  return { ...b, round_trip_ms: Math.max(0, b.round_trip_ms - queue), parts: b.parts.filter((p) => p.part !== "queue") };
}
