// Sentences for the events on a run's timeline.
import { changeLabel } from "./knobs";
import { eventChanges, isConfigChange } from "./series";
import type { RunEvent } from "./types";

export function describeEvent(event: RunEvent): string {
  if (isConfigChange(event)) return changeLabel(eventChanges(event)) || "config change";
  const status = event.changes?.status;
  const reason = event.changes?.reason;
  return typeof status === "string" ? `status → ${status}${typeof reason === "string" && reason ? ` (${reason})` : ""}` : event.kind;
}
