import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeComparison } from "@/test/compareFixture";
import { makeBreakdown, makeSummary } from "@/test/fixtures";
import { CompareBreakdown } from "./CompareBreakdown";

describe("CompareBreakdown", () => {
  it("puts each run's bar of an operation kind one under the other", () => {
    const comparison = makeComparison();
    comparison.summaries = [
      makeSummary({ breakdown: { "reader.read": makeBreakdown(0, 0, 3, 1) } }),
      makeSummary({ breakdown: { "reader.read": makeBreakdown(0, 12, 3, 1), "updater.txn": makeBreakdown(1, 0, 1, 2) } }),
    ];
    comparison.breakdowns = comparison.summaries.map((s) => s?.breakdown ?? {});
    render(<CompareBreakdown comparison={comparison} labels={["#1 a", "#2 b"]} />);
    const pct = (op: string, i: number, part: string) =>
      screen.getByTestId(`compare-breakdown-bar-${op}-${i}`).querySelector<HTMLElement>(`[data-part=${part}]`)?.dataset.pct;
    expect(pct("reader.read", 0, "client")).toBe("75.0");
    expect(pct("reader.read", 0, "session_wait")).toBeUndefined();
    expect(pct("reader.read", 1, "session_wait")).toBe("75.0");
    expect(screen.getByTestId("compare-breakdown-bar-updater.txn-0")).toHaveTextContent("no operations");
    expect(screen.getByTestId("compare-breakdown-bar-reader.read-1")).toHaveTextContent("#2 b");
    expect(pct("updater.txn", 1, "queue")).toBe("25.0");
    fireEvent.click(screen.getByTestId("compare-breakdown-from-actual-start"));
    expect(pct("updater.txn", 1, "queue")).toBeUndefined();
    expect(pct("updater.txn", 1, "server")).toBe("66.7");
  });

  it("draws the API's common breakdowns, not each summary's own, and says why a run's split is missing", () => {
    const comparison = makeComparison();
    comparison.summaries = [makeSummary({ breakdown: { "watcher.poll": makeBreakdown(0, 0, 1, 3) } }), makeSummary({ breakdown: { "watcher.poll": makeBreakdown(0, 0, 1, 3) } })];
    const whole = makeBreakdown(0, 0, 1, 3);
    comparison.breakdowns = [{ "watcher.poll": whole }, { "watcher.poll": whole }];
    comparison.breakdown_notes = { "watcher.poll": "The server's time is shown whole for every run: #2 has no SPANNER_SYS split of watcher.poll (#2: no complete minute inside the run yet)." };
    const split = comparison.summaries[0]?.breakdown["watcher.poll"];
    if (!split) throw new Error("the fixture has a breakdown");
    split.parts = [...split.parts.filter((p) => p.part !== "server"), { part: "query_commit", ms: 3, source: "spanner_sys" }];
    render(<CompareBreakdown comparison={comparison} labels={["#1 a", "#2 b"]} />);
    const part = (i: number, name: string) => screen.getByTestId(`compare-breakdown-bar-watcher.poll-${i}`).querySelector<HTMLElement>(`[data-part=${name}]`);
    expect(part(0, "query_commit")).toBeNull();
    expect(part(0, "server")?.dataset.pct).toBe("75.0");
    expect(part(1, "server")?.dataset.pct).toBe("75.0");
    expect(screen.getByTestId("compare-breakdown-note-watcher.poll")).toHaveTextContent("#2 has no SPANNER_SYS split of watcher.poll");
  });
});
