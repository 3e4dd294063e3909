// Sentences for the events on a run's timeline.
import { changeLabel } from "./knobs";
import { eventChanges, isConfigChange } from "./series";
import type { RunEvent } from "./types";

export function describeEvent(event: RunEvent): string {
  if (isConfigChange(event)) return changeLabel(eventChanges(event)) || "config change";
  const status = event.status ?? (event.changes?.status as string | undefined);
  const reason = event.reason ?? (event.changes?.reason as string | undefined);
  return status ? `status → ${status}${reason ? ` (${reason})` : ""}` : event.label ?? event.kind;
}
