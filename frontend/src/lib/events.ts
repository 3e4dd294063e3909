// Sentences for the events on a run's timeline.
import { changeLabel } from "./knobs";
import { eventChanges, isConfigChange } from "./series";
import type { RunEvent } from "./types";

export function describeEvent(event: RunEvent): string {
  if (isConfigChange(event)) return changeLabel(eventChanges(event)) || "config change";
  const c = event.changes ?? {};
  if (event.kind === "target_down") {
    const wait = typeof c.restart_in_s === "number" ? `; restarting it in ${c.restart_in_s} s` : "";
    return `target down${typeof c.reason === "string" ? `: ${c.reason}` : ""}${wait}`;
  }
  if (event.kind === "target_up") {
    const after = typeof c.down_s === "number" ? ` after ${c.down_s.toFixed(1)} s` : "";
    return `target up${after}${typeof c.restarts === "number" ? ` (restart ${c.restarts})` : ""}`;
  }
  if (event.kind === "stalled" || event.kind === "recovered") {
    const { worker, pid, silent_s: silent } = event.changes ?? {};
    const who = `worker ${String(worker)} (pid ${String(pid)})`;
    return event.kind === "stalled" ? `${who} stalled: silent for ${String(silent)} s` : `${who} reports again after ${String(silent)} s`;
  }
  if (event.kind === "watch_mode") {
    // the watch switched between polling and its change stream, or could not and goes on as it was
    const error = typeof c.error === "string" && c.error ? `: ${c.error}` : "";
    if (c.mode === c.previous) return `watch stays ${String(c.mode)}${error}`;
    return `watch switched ${String(c.previous)} → ${String(c.mode)}, handing over at ${String(c.handover)}${error}`;
  }
  if (event.kind === "preload_skipped") return typeof c.message === "string" ? c.message : "preload skipped";
  if (event.kind === "preload_started") {
    return `preload started: up to ${Number(c.rows).toLocaleString("en-US")} rows (the table held ${Number(c.table_rows).toLocaleString("en-US")})`;
  }
  if (event.kind === "preload_finished") {
    const loaded = Number(c.loaded).toLocaleString("en-US");
    const rate = Number(c.rows_per_s).toLocaleString("en-US", { maximumFractionDigits: 0 });
    return `preload finished: ${loaded} rows loaded in ${String(c.seconds)} s (${rate} rows/s)`;
  }
  const status = event.changes?.status;
  const reason = event.changes?.reason;
  return typeof status === "string" ? `status → ${status}${typeof reason === "string" && reason ? ` (${reason})` : ""}` : event.kind;
}
