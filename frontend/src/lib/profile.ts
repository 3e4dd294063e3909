// A load profile's planned target (config.profile), drawn on the throughput chart ahead of the run
// as a lighter dashed line: the schedule as configured (live skips and extensions are not replayed
// here; the target gauge shows what was done). Mirrors model/profile.py's plan().
import type { ChartSpec, Row } from "@/lib/series";
import type { RunConfig } from "@/lib/types";

export const PLANNED_KEY = "tps_planned";
type Profile = NonNullable<RunConfig["profile"]>;

/** The plan's corners on the profile's clock: a level's start and end, a ramp's two ends. */
export function plannedPoints(profile: Profile): { x: number; rate: number }[] {
  const out: { x: number; rate: number }[] = [];
  let start = 0;
  let previous = 0;
  for (const stage of profile.stages) {
    if (stage.kind === "hold") {
      out.push({ x: start, rate: stage.rate }, { x: start + stage.duration_s, rate: stage.rate });
      start += stage.duration_s;
      previous = stage.rate;
    } else if (stage.kind === "ramp") {
      out.push({ x: start, rate: stage.from_rate }, { x: start + stage.duration_s, rate: stage.to_rate });
      start += stage.duration_s;
      previous = stage.to_rate;
    } else {
      const begin = stage.from_rate ?? previous;
      const levels = Math.ceil((stage.to_rate - begin) / stage.increment - 1e-9);
      for (let i = 1; i <= levels; i++) {
        const rate = Math.min(begin + stage.increment * i, stage.to_rate);
        out.push({ x: start, rate }, { x: start + stage.every_s, rate });
        start += stage.every_s;
        previous = rate;
      }
    }
  }
  return out;
}

/** The rows and charts with the profile's plan on the throughput chart; unchanged without a
 *  profile of the updater (a definition operation's profile has no such chart). */
export function withPlan(rows: readonly Row[], charts: readonly ChartSpec[], config: RunConfig | null | undefined): { rows: readonly Row[]; charts: readonly ChartSpec[] } {
  const profile = config?.profile;
  if (!profile || config?.definition) return { rows, charts };
  const planned: Row[] = plannedPoints(profile).map((p) => ({ x: p.x, [PLANNED_KEY]: p.rate }));
  const merged = [...rows, ...planned].sort((a, b) => a.x - b.x);
  const line = { key: PLANNED_KEY, label: "planned tx/s (profile)", pick: () => null, dashed: true };
  return { rows: merged, charts: charts.map((c) => (c.id === "throughput" ? { ...c, lines: [...c.lines, line] } : c)) };
}
