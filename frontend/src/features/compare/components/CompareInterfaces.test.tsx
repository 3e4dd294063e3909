import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeComparison } from "@/test/compareFixture";
import { CompareInterfaces } from "./CompareInterfaces";

describe("CompareInterfaces", () => {
  it("shows PGAdapter's added latency in ms and as a share of the round trip", () => {
    const comparison = makeComparison();
    comparison.interfaces = [
      {
        question: "PGAdapter's added latency",
        base: "postgresql",
        other: "pgadapter",
        base_run: 0,
        other_run: 1,
        ops: [{ op: "tpcc.new_order", deltas: [{ percentile: "p50", base_ms: 12, other_ms: 12.5, added_ms: 0.5, share_pct: 4 }] }],
      },
    ];
    render(<CompareInterfaces comparison={comparison} labels={["#1 client", "#2 pgadapter"]} />);
    const row = screen.getByTestId("compare-interface-pgadapter-tpcc.new_order-p50");
    expect(row).toHaveTextContent("12.0 ms12.5 ms0.50 ms4.0 %");
    expect(screen.getByTestId("compare-interface-pgadapter")).toHaveTextContent("#2 pgadapter (pgadapter) against #1 client (postgresql)");
  });

  it("is absent when the runs share one interface", () => {
    render(<CompareInterfaces comparison={makeComparison()} labels={["a", "b"]} />);
    expect(screen.queryByTestId("compare-interfaces")).toBeNull();
  });
});
