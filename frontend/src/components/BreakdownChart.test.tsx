import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeBreakdown, makeSample } from "@/test/fixtures";
import { BreakdownChart, BreakdownCharts } from "./BreakdownChart";

describe("BreakdownChart", () => {
  it("draws one chart per operation kind, with the parts that kind has", () => {
    const samples = [0, 1, 2].map((seq) =>
      makeSample(seq, { breakdown: { "updater.txn": makeBreakdown(1, 0, 2, 1), "tpcc.new_order": makeBreakdown(0, 3, 2, 1) } }),
    );
    samples.push(makeSample(3, { breakdown: { "updater.txn": makeBreakdown(1, 0, 2, 1) } }));
    render(<BreakdownCharts samples={samples} />);
    const charts = [...screen.getByTestId("breakdown-charts").querySelectorAll<HTMLElement>("figure")];
    expect(charts.map((c) => [c.dataset.op, c.dataset.points, c.dataset.parts])).toEqual([
      ["tpcc.new_order", "3", "queue session_wait client server"],
      ["updater.txn", "4", "queue session_wait client server"],
    ]);
    expect(charts[0]).toHaveTextContent("Where the time goes: tpcc.new_order");
    fireEvent.click(screen.getByTestId("breakdown-from-actual-start"));
    expect(screen.getByTestId("breakdown-chart-updater.txn")).toHaveAttribute("data-parts", "session_wait client server");
  });

  it("says so when the kind has no operations yet, and draws nothing without any breakdown", () => {
    render(<BreakdownChart op="reader.read" samples={[makeSample(0)]} />);
    expect(screen.getByTestId("breakdown-chart-reader.read")).toHaveAttribute("data-points", "0");
    expect(screen.getByTestId("breakdown-chart-reader.read")).toHaveTextContent("No operations of this kind yet.");
    const { container } = render(<BreakdownCharts samples={[makeSample(0, { breakdown: {} })]} />);
    expect(container).toBeEmptyDOMElement();
  });
});
