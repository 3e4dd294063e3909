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

export function headlines(run: RunPublic): Headlines {
  const summary = run.summary;
  const latest = run.latest;
  return {
    tps: n(summary?.rates?.[Gauge.UPDATER_TPS]) ?? n(latest?.gauges?.[Gauge.UPDATER_TPS]),
    updaterP99: n(summary?.latency?.[Op.UPDATER_TXN]?.p99) ?? n(latest?.latency?.[Op.UPDATER_TXN]?.p99),
    notifyP50: n(summary?.latency?.[Op.WATCHER_NOTIFY]?.p50) ?? n(latest?.latency?.[Op.WATCHER_NOTIFY]?.p50),
    readsP99: n(summary?.latency?.[Op.READER_READ]?.p99) ?? n(latest?.latency?.[Op.READER_READ]?.p99),
  };
}

export function runDuration(run: RunPublic, now = Date.now()): number | null {
  if (typeof run.summary?.duration_s === "number" && run.summary.duration_s > 0) return run.summary.duration_s;
  const measured = secondsBetween(run.started_at, run.ended_at ?? run.finished_at ?? null, now);
  if (measured !== null) return measured;
  return typeof run.last_elapsed_s === "number" ? run.last_elapsed_s : null;
}

export function runTarget(run: RunPublic): string {
  return run.target_kind ?? run.config?.target?.kind ?? "—";
}
