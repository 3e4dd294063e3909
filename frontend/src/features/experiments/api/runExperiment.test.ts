import { describe, expect, it } from "vitest";
import type { Experiment } from "@/lib/api/experiments";
import { makeRun } from "@/test/fixtures";
import type { RunCreate, RunState } from "@/lib/types";
import { compareUrl, runExperiment, variantRequest, type VariantProgress } from "./runExperiment";

const HINT: Experiment = {
  name: "hint",
  description: "the poll with and without the hint",
  variants: [
    { preset: "medium", description: "hinted" },
    { preset: "medium-no-hint", description: "no hint" },
  ],
  figures: [{ metric: "watcher.poll_server.p50_ms", label: "poll at the server p50 ms" }],
  report: "49x",
  overrides: { duration_s: 60, preload: { rows: 100000 }, target: { kind: "local", database: "spanload-exp-hint" } },
  duration_s: 60,
  preload_rows: 100000,
};

/** A server whose runs go through the given states, one per poll. */
function fakeServer(states: Record<string, RunState[]>) {
  const log: string[] = [];
  let made = 0;
  const polls = new Map<string, RunState[]>();
  return {
    log,
    api: {
      createRun: (body: RunCreate) => {
        const id = `r${made++}`;
        log.push(`create ${id} ${body.preset ?? ""}`);
        polls.set(id, [...(states[body.preset ?? ""] ?? ["finished"])]);
        return Promise.resolve(makeRun(id, { preset: body.preset ?? null, status: "starting" }));
      },
      getRun: (id: string) => {
        const next = polls.get(id)?.shift() ?? "finished";
        log.push(`poll ${id} ${next}`);
        return Promise.resolve(makeRun(id, { status: next, failure_reason: next === "failed" ? "the target went away" : null }));
      },
      sleep: () => Promise.resolve(),
    },
  };
}

describe("an experiment from the browser", () => {
  it("puts every variant on the experiment's database with the chosen length and table size", () => {
    const body = variantRequest(HINT, "medium-no-hint", { durationS: 20, preloadRows: 30000 }, "t");
    expect(body).toEqual({
      preset: "medium-no-hint",
      overrides: { duration_s: 20, preload: { rows: 30000 }, target: { kind: "local", database: "spanload-exp-hint" } },
      name: "hint: medium-no-hint (t)",
      tags: ["experiment:hint"],
    });
  });

  it("leaves each variant's own preload alone when the table size is left as offered", () => {
    const twoPc = { ...HINT, name: "two-pc", overrides: { duration_s: 60, target: { kind: "local" } }, preload_rows: 0 };
    const body = variantRequest(twoPc, "2pc-participants-preloaded", { durationS: 10, preloadRows: 0 }, "t");
    expect(body.overrides).toEqual({ duration_s: 10, target: { kind: "local" } });
  });

  it("starts each variant only after the one before has finished, then gives the ids to compare", async () => {
    const server = fakeServer({ medium: ["preloading", "running", "finished"], "medium-no-hint": ["running", "finished"] });
    const seen: VariantProgress[][] = [];
    const ids = await runExperiment(HINT, { durationS: 20, preloadRows: 1000 }, server.api, (p) => seen.push(p));
    expect(server.log).toEqual([
      "create r0 medium",
      "poll r0 preloading",
      "poll r0 running",
      "poll r0 finished",
      "create r1 medium-no-hint",
      "poll r1 running",
      "poll r1 finished",
    ]);
    expect(ids).toEqual(["r0", "r1"]);
    expect(compareUrl(ids)).toBe("/compare?ids=r0,r1");
    // progress: every variant listed from the start, the second waiting while the first preloads
    expect(seen[0]?.map((p) => p.run)).toEqual([null, null]);
    expect(seen[2]?.map((p) => p.run?.status ?? "waiting")).toEqual(["preloading", "waiting"]);
    expect(seen.at(-1)?.map((p) => p.run?.status)).toEqual(["finished", "finished"]);
  });

  it("stops at a variant that fails, with its reason, and starts no other", async () => {
    const server = fakeServer({ medium: ["running", "failed"] });
    await expect(runExperiment(HINT, { durationS: 20, preloadRows: 1000 }, server.api, () => {})).rejects.toThrow(
      "Variant medium failed: the target went away; the experiment stopped there.",
    );
    expect(server.log.filter((l) => l.startsWith("create"))).toEqual(["create r0 medium"]);
  });
});
