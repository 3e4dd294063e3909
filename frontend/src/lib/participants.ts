// The series of the participants chart, picked out of samples.
import { Gauge, Op, type Sample } from "@/lib/types";

/** The commit's server time from the server-timing header, as the client received it (Op.UPDATER_TXN_SERVER). */
const COMMIT_SERVER_TIMING = "updater.txn_server";

export interface ParticipantsRow {
  x: number;
  participants: number | null;
  splits: number | null;
  client_ms: number | null;
  server_timing_ms: number | null;
  server_commit_ms: number | null;
  cpu_pct: number | null;
  cpu_per_commit_ms: number | null;
}

function num(value: number | null | undefined, scale = 1): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value * scale : null;
}

/** One row per sample; the chart's series. */
export function participantsRows(samples: readonly Sample[]): ParticipantsRow[] {
  return samples.map((s) => ({
    x: s.elapsed_s,
    participants: num(s.gauges?.[Gauge.SERVER_COMMIT_PARTICIPANTS]),
    splits: num(s.gauges?.[Gauge.SERVER_SPLITS]),
    client_ms: num(s.latency?.[Op.UPDATER_TXN]?.p50),
    server_timing_ms: num(s.latency?.[COMMIT_SERVER_TIMING]?.p50),
    server_commit_ms: num(s.gauges?.[Gauge.SERVER_COMMIT_LATENCY_S], 1000),
    cpu_pct: num(s.gauges?.[Gauge.SERVER_CPU_FRACTION], 100),
    cpu_per_commit_ms: num(s.gauges?.[Gauge.SERVER_CPU_PER_COMMIT_MS]),
  }));
}

/** True when the run's target reports participants (the local Spanner does). */
export function hasParticipants(rows: readonly ParticipantsRow[]): boolean {
  return rows.some((r) => r.participants !== null);
}
