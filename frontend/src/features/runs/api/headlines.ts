// The headline figures of a run for the runs table: from its summary once finished, from its
// newest sample while it runs.
import { secondsBetween } from "@/lib/format";
import { Gauge, Op, type RunPublic } from "@/lib/types";

export interface Headlines {
  tps: number | null;
  updaterP99: number | null;
  notifyP50: number | null;
  readsP99: number | null;
}

function n(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The server's headline (from the summary, or the newest sample while running), else the summary. */
export function headlines(run: RunPublic): Headlines {
  const h = run.headline;
  const summary = run.summary;
  return {
    tps: n(h?.achieved_tps) ?? n(summary?.rates?.[Gauge.UPDATER_TPS]),
    updaterP99: n(h?.updater_p99_ms) ?? n(summary?.latency?.[Op.UPDATER_TXN]?.p99),
    notifyP50: n(h?.notify_p50_ms) ?? n(summary?.latency?.[Op.WATCHER_NOTIFY]?.p50),
    readsP99: n(h?.reads_p99_ms) ?? n(summary?.latency?.[Op.READER_READ]?.p99),
  };
}

export function runDuration(run: RunPublic, now = Date.now()): number | null {
  if (typeof run.summary?.duration_s === "number" && run.summary.duration_s > 0) return run.summary.duration_s;
  if (typeof run.duration_s === "number" && run.duration_s > 0) return run.duration_s;
  return secondsBetween(run.started_at, run.ended_at, now);
}

export function runTarget(run: RunPublic): string {
  return run.target_kind ?? run.config?.target?.kind ?? "—";
}
