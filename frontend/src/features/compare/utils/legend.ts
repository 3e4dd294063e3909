// Legend labels for compared runs: their number (as on the chart markers), name, and what differs.
import { formatValue, KNOB_BY_PATH } from "@/lib/knobs";
import type { ConfigDiffEntry, RunPublic } from "@/lib/types";

/** Fields that differ but say nothing about the workload (a seed is drawn anew for every run). */
const IGNORED = new Set(["name", "preset", "seed"]);

export function legendLabels(runs: readonly RunPublic[], diff: readonly ConfigDiffEntry[], maxFields = 3): string[] {
  // A definition's own fields are long and many: its knob values (knobs.<name>) name the run instead.
  const fields = diff.filter((d) => !IGNORED.has(d.field) && !d.field.startsWith("definition.")).slice(0, maxFields);
  return runs.map((run, i) => {
    const name = run.name ?? run.preset ?? run.id.slice(0, 8);
    const parts = fields.map((d) => `${KNOB_BY_PATH.get(d.field)?.short ?? d.field}=${formatValue(d.values[i])}`);
    return `#${i + 1} ${name}${parts.length ? ` (${parts.join(", ")})` : ""}`;
  });
}
