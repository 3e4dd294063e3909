import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeComparison } from "@/test/compareFixture";
import { legendLabels } from "../utils/legend";
import { CompareSummaryTable } from "./CompareSummaryTable";

describe("CompareSummaryTable", () => {
  it("colours a delta beyond the noise, shows one inside it neutral with its interval, and n/a with its reason", () => {
    const comparison = makeComparison();
    render(<CompareSummaryTable comparison={comparison} labels={legendLabels(comparison.runs, comparison.config_diff)} />);
    // The workloads' key figures first, in the API's order, with its words; the rest behind a toggle.
    expect(screen.getAllByTestId("compare-metric").map((r) => r.dataset.metric)).toEqual(["rates.updater.tps", "latency.updater.txn.p99", "rates.server.poll_avg_latency_s"]);
    expect(screen.getByRole("rowheader", { name: "achieved tx/s" })).toBeInTheDocument();
    const tps = screen.getByTestId("cell-rates.updater.tps-1");
    expect(tps).toHaveAttribute("data-tone", "better");
    expect(tps).toHaveTextContent("+890.0% ± 40.0%");
    const p99 = screen.getByTestId("cell-latency.updater.txn.p99-1");
    expect(p99).toHaveAttribute("data-tone", "worse");
    expect(p99).toHaveClass("tone-worse");
    expect(p99).toHaveTextContent("+50.0% ± 15.0%");
    const poll = screen.getByTestId("cell-rates.server.poll_avg_latency_s-1");
    expect(poll).toHaveTextContent("n/a");
    expect(poll).toHaveTextContent("no complete minute inside the run yet");
    expect(poll).toHaveAttribute("data-tone", "neutral");

    fireEvent.click(screen.getByTestId("show-all-metrics"));
    // Errors went from 0 to 0.5/s, inside the noise: neutral, and it says so.
    const errors = screen.getByTestId("cell-rates.errors_ps-1");
    expect(errors).toHaveAttribute("data-tone", "noise");
    expect(errors).toHaveTextContent("+0.50 ± 0.60, not significant");
    expect(screen.getByTestId("cell-duration_s-1")).toHaveAttribute("data-tone", "neutral");
    // The baseline column shows values only.
    expect(screen.getByTestId("cell-rates.updater.tps-0")).toHaveAttribute("data-tone", "neutral");
    expect(screen.getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["metric", "#1 light (tx/s=1)baseline", "#2 medium (tx/s=10)"]);
  });

  it("badges a run changed live and says its deltas mix two configs", () => {
    const comparison = makeComparison();
    const [, b] = comparison.runs;
    if (!b) throw new Error("the fixture has two runs");
    b.live_changes = [{ field: "updater.transactions_per_second", at_start: 10, at_end: 20, steps: [{ elapsed_s: 20, value: 20 }] }];
    render(<CompareSummaryTable comparison={comparison} labels={["#1 a", "#2 b"]} />);
    expect(screen.queryByTestId("live-changed-0")).toBeNull();
    expect(screen.getByTestId("live-changed-1")).toHaveTextContent("changed live");
    expect(screen.getByTestId("cell-rates.updater.tps-1")).toHaveTextContent("mixed config");
    expect(screen.getByTestId("cell-rates.updater.tps-0")).not.toHaveTextContent("mixed config");
    expect(screen.getByTestId("mixed-config-1")).toHaveTextContent("#2 b was changed live, so part of it ran with another config: Write rate 10 → 20 tx/s at +20s.");
  });
});
