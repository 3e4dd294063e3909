import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "@/lib/knobs";
import { PLANNED_KEY, plannedFuture, plannedPoints, withPlan } from "@/lib/profile";
import { RUN_CHARTS } from "@/lib/series";
import type { RunConfig, RunEvent } from "@/lib/types";

const profileEvent = (elapsed: number, changes: Record<string, unknown>): RunEvent => ({ id: elapsed, kind: "profile", t: new Date(elapsed * 1000).toISOString(), elapsed_s: elapsed, who: null, changes });

const PROFILE: NonNullable<RunConfig["profile"]> = {
  operation: null,
  ramp_step_s: null,
  stop_at_end: true,
  stages: [
    { kind: "hold", rate: 100, duration_s: 30 },
    { kind: "ramp", from_rate: 100, to_rate: 400, duration_s: 60 },
    { kind: "step", from_rate: null, increment: 100, every_s: 10, to_rate: 550 },
  ],
};

describe("a profile's plan", () => {
  it("moves with the live edits: drawn from the stage under way, later by each extension, gone once abandoned", () => {
    // the first stage began 2 s into the run, was extended by 20 s; the skip began the ramp at 40 s
    const started = [profileEvent(2, { event: "stage", stage: 0, position_s: 0 })];
    expect(plannedFuture(PROFILE, started).slice(0, 3)).toEqual([{ x: 2, rate: 100 }, { x: 32, rate: 100 }, { x: 32, rate: 100 }]);
    const extended = [...started, profileEvent(10, { event: "extend", stage: 0, seconds: 20 })];
    expect(plannedFuture(PROFILE, extended)[1]).toEqual({ x: 52, rate: 100 });
    const skipped = [...extended, profileEvent(40, { event: "skip", stage: 0 }), profileEvent(40, { event: "stage", stage: 1, position_s: 10 })];
    expect(plannedFuture(PROFILE, skipped)).toEqual([
      { x: 40, rate: 100 },
      { x: 100, rate: 400 },
      { x: 100, rate: 500 },
      { x: 110, rate: 500 },
      { x: 110, rate: 550 },
      { x: 120, rate: 550 },
    ]);
    expect(plannedFuture(PROFILE, [...skipped, profileEvent(50, { event: "abandon", stage: 1, rate: 150 })])).toEqual([]);
  });

  it("places every stage as the engine does, a step from where the last stage ended", () => {
    expect(plannedPoints(PROFILE)).toEqual([
      { x: 0, rate: 100 },
      { x: 30, rate: 100 },
      { x: 30, rate: 100 },
      { x: 90, rate: 400 },
      { x: 90, rate: 500 },
      { x: 100, rate: 500 },
      { x: 100, rate: 550 },
      { x: 110, rate: 550 },
    ]);
  });

  it("adds the planned line to the throughput chart only for a run with a profile", () => {
    const rows = [{ x: 1, tps: 99 }];
    const plain = withPlan(rows, RUN_CHARTS, DEFAULT_CONFIG);
    expect(plain.rows).toBe(rows);
    const { rows: planned, charts } = withPlan(rows, RUN_CHARTS, { ...DEFAULT_CONFIG, profile: PROFILE });
    expect(planned.map((r) => r.x)).toEqual([0, 1, 30, 30, 90, 90, 100, 100, 110]);
    expect(planned.filter((r) => r[PLANNED_KEY] != null)).toHaveLength(8);
    const throughput = charts.find((c) => c.id === "throughput");
    expect(throughput?.lines.at(-1)?.key).toBe(PLANNED_KEY);
  });
});
