import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { emptyReasons, offCharts, toRows } from "@/lib/series";
import { DEFAULT_CONFIG } from "@/lib/knobs";
import { makeSample } from "@/test/fixtures";
import { RunCharts } from "./RunCharts";

const readerGauges = (rps: number) => ({ "updater.tps": 9, "reader.rps": rps, "reader.target_rps": 0 });

describe("RunCharts", () => {
  it("says readers are off instead of drawing their zero rate as a flat line", () => {
    const config = DEFAULT_CONFIG;
    expect(config.reader.enabled).toBe(false);
    const rows = toRows([0, 1, 2].map((seq) => makeSample(seq, { gauges: readerGauges(0) })));
    render(<RunCharts rows={rows} markers={[]} emptyText={emptyReasons(config)} off={offCharts(config)} />);
    const chart = screen.getByTestId("chart-reader-latency");
    expect(chart).toHaveAttribute("data-points", "0");
    expect(chart).toHaveTextContent("Readers are off in this run.");
    expect(screen.getByTestId("chart-updater-latency")).toHaveAttribute("data-points", "3");
  });

  it("defines the watcher lag under the notification chart, and nowhere else", () => {
    render(<RunCharts rows={[]} markers={[]} />);
    expect(screen.getByTestId("chart-notify")).toHaveTextContent("Watcher lag: the longest a change could wait");
    expect(screen.getByTestId("chart-poll")).not.toHaveTextContent("Watcher lag");
  });

  it("keeps the history of a part switched off during the run", () => {
    const samples = [makeSample(0, { gauges: readerGauges(4) }), makeSample(1, { gauges: readerGauges(0) })];
    render(<RunCharts rows={toRows(samples)} markers={[]} emptyText={emptyReasons(DEFAULT_CONFIG)} off={offCharts(DEFAULT_CONFIG)} />);
    expect(screen.getByTestId("chart-reader-latency")).toHaveAttribute("data-points", "2");
  });
});

describe("RunCharts on a finished run (hideEmpty)", () => {
  it("lists a part that was off with the charts that have no data", () => {
    const rows = toRows([0, 1].map((seq) => makeSample(seq, { gauges: readerGauges(0) })));
    render(<RunCharts rows={rows} markers={[]} hideEmpty off={offCharts(DEFAULT_CONFIG)} />);
    expect(screen.queryByTestId("chart-reader-latency")).toBeNull();
    expect(screen.getByText(/No data in this run for: .*Reader latency and rate/)).toBeInTheDocument();
    expect(screen.getByTestId("chart-updater-latency")).toHaveAttribute("data-points", "2");
  });
});
