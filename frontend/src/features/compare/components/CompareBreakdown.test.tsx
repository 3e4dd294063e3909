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
});
