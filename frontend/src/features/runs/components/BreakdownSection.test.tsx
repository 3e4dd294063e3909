import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeBreakdown, makeSummary } from "@/test/fixtures";
import { BreakdownSection } from "./BreakdownSection";

describe("BreakdownSection", () => {
  it("shows, per operation kind, the bar and the client latency next to the server's", () => {
    const summary = makeSummary({
      latency: {
        "reader.read": { count: 500, p50: 120, p90: 500, p95: 600, p99: 735, p999: 800, max: 900, mean: 200 },
        "reader.read_server": { count: 500, p50: 20, p90: 60, p95: 80, p99: 102, p999: 110, max: 120, mean: 30 },
      },
      breakdown: { "reader.read": makeBreakdown(5, 150, 15, 30, 500) },
    });
    render(<BreakdownSection summary={summary} />);
    expect(screen.getByTestId("breakdown-latency-reader.read")).toHaveTextContent("client p50 120 ms, p99 735 ms · server p50 20.0 ms, p99 102 ms");
    const session = screen.getByTestId("breakdown-bar-reader.read").querySelector<HTMLElement>("[data-part=session_wait]");
    expect(session?.dataset.pct).toBe("75.0");
    // as the application sees it (no queue): session wait is 150 of its 195 ms
    const actual = screen.getByTestId("breakdown-actual-bar-reader.read");
    expect([...actual.querySelectorAll<HTMLElement>(".breakdown-segment")].map((s) => [s.dataset.part, s.dataset.pct])).toEqual([
      ["session_wait", "76.9"],
      ["client", "7.7"],
      ["server", "15.4"],
    ]);
  });

  it("shows no second bar when nothing waited behind the pacer (a closed loop: terminals)", () => {
    render(<BreakdownSection summary={makeSummary({ breakdown: { "tpcc.payment": makeBreakdown(0, 0, 3, 1) } })} />);
    expect(screen.getByTestId("breakdown-bar-tpcc.payment")).toBeInTheDocument();
    expect(screen.queryByTestId("breakdown-actual-bar-tpcc.payment")).toBeNull();
  });

  it("says when a run has no breakdown (saved before it existed)", () => {
    render(<BreakdownSection summary={makeSummary({ breakdown: {} })} />);
    expect(screen.getByText("No breakdown: this run recorded none.")).toBeInTheDocument();
  });
});
