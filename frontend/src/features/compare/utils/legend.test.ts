import { describe, expect, it } from "vitest";
import { makeRun } from "@/test/fixtures";
import type { ConfigDiffEntry } from "@/lib/types";
import { legendLabels } from "./legend";

const entry = (field: string, values: unknown[]) => ({ field, values, at_end: values }) as unknown as ConfigDiffEntry;

describe("legendLabels", () => {
  it("names each run by what differs in its workload, not by the seed every run draws anew", () => {
    // Found comparing two runs: every label read "(duration=120, seed=7539331600080459000, tx/s=5)"
    const runs = [makeRun("a", { name: "light" }), makeRun("b", { name: "kill" })];
    const diff = [entry("duration_s", [120, 45]), entry("seed", [7539331600080458, 7685569401526726]), entry("updater.transactions_per_second", [5, 15])];
    expect(legendLabels(runs, diff)).toEqual(["#1 light (duration=120, tx/s=5)", "#2 kill (duration=45, tx/s=15)"]);
  });
});
