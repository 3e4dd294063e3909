import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "@/lib/knobs";
import { PLANNED_KEY, plannedPoints, withPlan } from "@/lib/profile";
import { RUN_CHARTS } from "@/lib/series";
import type { RunConfig } from "@/lib/types";

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
