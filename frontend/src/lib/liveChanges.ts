// A run's live config changes in words: "10 → 20 tx/s", changed at "+20s, +45s".
import { formatDuration } from "@/lib/format";
import { formatValue, KNOB_BY_PATH } from "@/lib/knobs";
import type { LiveChange } from "@/lib/types";

/** "+20s, +45s": when each change of one field happened, in seconds into the run. */
export function changeTimes(change: LiveChange): string {
  return change.steps.map((s) => `+${formatDuration(s.elapsed_s)}`).join(", ");
}

/** "10 → 20 tx/s". */
export function startToEnd(change: LiveChange): string {
  const unit = KNOB_BY_PATH.get(change.field)?.unit;
  return `${formatValue(change.at_start)} → ${formatValue(change.at_end)}${unit ? ` ${unit}` : ""}`;
}

/** "Write rate 10 → 20 tx/s at +20s; ...": every change of a run in one line. */
export function describeChanges(changes: readonly LiveChange[]): string {
  return changes.map((c) => `${KNOB_BY_PATH.get(c.field)?.label ?? c.field} ${startToEnd(c)} at ${changeTimes(c)}`).join("; ");
}
