// A load profile's planned target (config.profile), drawn on the throughput chart ahead of the run
// as a lighter dashed line. Mirrors model/profile.py's plan(). Live edits move it: the plan is drawn
// from the stage under way (its `profile` event's time, on the run's clock), each extension of it
// pushes the rest later, and after the profile is abandoned or over nothing planned is left.
import type { ChartSpec, Row } from "@/lib/series";
import type { RunConfig, RunEvent } from "@/lib/types";

export const PLANNED_KEY = "tps_planned";
type Profile = NonNullable<RunConfig["profile"]>;

type Point = { x: number; rate: number; stage?: number };

/** The plan's corners on the profile's clock: a level's start and end, a ramp's two ends. */
export function plannedPoints(profile: Profile): { x: number; rate: number }[] {
  return stagePoints(profile).map(({ x, rate }) => ({ x, rate }));
}

function stagePoints(profile: Profile): Point[] {
  const out: Point[] = [];
  let start = 0;
  let previous = 0;
  for (const [index, stage] of profile.stages.entries()) {
    const from = out.length;
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
    for (const p of out.slice(from)) p.stage = index;
  }
  return out;
}

/** The plan still ahead, on the run's clock, after the live edits on its timeline. */
export function plannedFuture(profile: Profile, events: readonly RunEvent[] = []): { x: number; rate: number }[] {
  const points = stagePoints(profile);
  let from = 0;
  let offset = 0;
  for (const e of events) {
    if (e.kind !== "profile") continue;
    const what = e.changes.event;
    if (what === "abandon" || what === "end") return [];
    if (what === "stage" && typeof e.changes.stage === "number") {
      from = e.changes.stage;
      const begins = points.find((p) => p.stage === from)?.x ?? 0;
      offset = e.elapsed_s - begins;
    } else if (what === "extend" && typeof e.changes.seconds === "number") {
      offset += e.changes.seconds;
    }
  }
  return points.filter((p) => (p.stage ?? 0) >= from).map((p) => ({ x: p.x + offset, rate: p.rate }));
}

/** The rows and charts with the profile's plan on the throughput chart; unchanged without a
 *  profile of the updater (a definition operation's profile has no such chart). */
export function withPlan(rows: readonly Row[], charts: readonly ChartSpec[], config: RunConfig | null | undefined, events: readonly RunEvent[] = []): { rows: readonly Row[]; charts: readonly ChartSpec[] } {
  const profile = config?.profile;
  if (!profile || config?.definition) return { rows, charts };
  const planned: Row[] = plannedFuture(profile, events).map((p) => ({ x: p.x, [PLANNED_KEY]: p.rate }));
  const merged = [...rows, ...planned].sort((a, b) => a.x - b.x);
  const line = { key: PLANNED_KEY, label: "planned tx/s (profile)", pick: () => null, dashed: true };
  return { rows: merged, charts: charts.map((c) => (c.id === "throughput" ? { ...c, lines: [...c.lines, line] } : c)) };
}
