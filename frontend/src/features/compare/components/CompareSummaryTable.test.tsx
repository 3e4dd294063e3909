import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeComparison } from "@/test/compareFixture";
import { legendLabels } from "../utils/legend";
import { CompareSummaryTable } from "./CompareSummaryTable";

describe("CompareSummaryTable", () => {
  it("shows the API's deltas, coloured better or worse against the baseline", () => {
    const comparison = makeComparison();
    render(<CompareSummaryTable comparison={comparison} labels={legendLabels(comparison.runs, comparison.config_diff)} />);
    // Headline metrics first; the rest behind a toggle.
    expect(screen.queryByTestId("cell-duration_s-1")).toBeNull();
    fireEvent.click(screen.getByTestId("show-all-metrics"));
    const tps = screen.getByTestId("cell-rates.updater.tps-1");
    expect(tps).toHaveAttribute("data-tone", "better");
    expect(tps).toHaveAttribute("data-delta", "8.9");
    expect(tps).toHaveTextContent("+8.90 (+890.0%)");
    const p99 = screen.getByTestId("cell-latency.updater.txn.p99-1");
    expect(p99).toHaveAttribute("data-tone", "worse");
    expect(p99).toHaveClass("tone-worse");
    expect(p99).toHaveTextContent("+4.00 (+50.0%)");
    // Errors went from 0 to 0.5/s: worse even though the percent change is undefined.
    expect(screen.getByTestId("cell-rates.errors_ps-1")).toHaveAttribute("data-tone", "worse");
    expect(screen.getByTestId("cell-duration_s-1")).toHaveAttribute("data-tone", "neutral");
    // The baseline column shows values only.
    expect(screen.getByTestId("cell-rates.updater.tps-0")).toHaveAttribute("data-tone", "neutral");
    expect(screen.getByRole("rowheader", { name: "achieved tx/s" })).toBeInTheDocument();
    expect(screen.getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["metric", "#1 light (tx/s=1)baseline", "#2 medium (tx/s=10)"]);
  });
});
