import { describe, expect, it } from "vitest";
import { makeComparison } from "@/test/compareFixture";
import { configEvent, statusEvent, targetEvent } from "@/test/fixtures";
import { compareCharts, compareMarkers, compareRows, metricRows, parseIds, scaleCell } from "./compare";

describe("compare transforms", () => {
  it("marks each run's live changes in its colour, numbered as in the legend", () => {
    const status = statusEvent(0, "running");
    const markers = compareMarkers([[status, configEvent(40, { "updater.transactions_per_second": 20 })], [configEvent(12.5, { "watcher.limit": 10 })]]);
    expect(markers).toEqual([
      { x: 40, label: "#1 tx/s=20", color: "#3b82f6" },
      { x: 12.5, label: "#2 limit=10", color: "#f59e0b" },
    ]);
  });

  it("marks each run's target outages too, in its colour", () => {
    const markers = compareMarkers([[], [statusEvent(0, "running"), targetEvent(5, false), targetEvent(7.5, true)]]);
    expect(markers).toEqual([
      { x: 5, label: "#2 target down", color: "#f59e0b" },
      { x: 7.5, label: "#2 target up", color: "#f59e0b" },
    ]);
  });

  it("reads ids from the URL without blanks or repeats", () => {
    expect(parseIds("a, b,,a,c")).toEqual(["a", "b", "c"]);
    expect(parseIds(null)).toEqual([]);
  });

  it("gives one cell per run per metric, the API's key figures first", () => {
    const rows = metricRows(makeComparison());
    expect(rows.map((r) => r.name)).toEqual(["rates.updater.tps", "latency.updater.txn.p99", "rates.server.poll_avg_latency_s", "duration_s", "rates.errors_ps"]);
    expect(rows[0]).toEqual({
      name: "rates.updater.tps",
      scale: 1,
      label: "achieved tx/s",
      better: "higher",
      cells: [
        { value: 1, delta: 0, percent: 0, uncertainty: null, significant: null, unavailable: null },
        { value: 9.9, delta: 8.9, percent: 890, uncertainty: 0.4, significant: true, unavailable: null },
      ],
    });
    expect(rows[3]?.label).toBeNull();
  });

  it("shows a server latency the API gives in seconds in ms, its delta and interval too", () => {
    const c = makeComparison();
    c.metrics.push({ metric: "rates.server.commit_latency_s", better: "lower", values: [0.004, 0.006], delta: [0, 0.002], percent_change: [0, 50], unavailable: [null, null], uncertainty: [null, 0.0005], significant: [null, true] });
    const row = metricRows(c).find((r) => r.name === "rates.server.commit_latency_s");
    if (!row?.cells[1]) throw new Error("the row is there");
    expect(row.cells[1].delta).toBe(0.002); // the API's number, kept for data attributes
    const shown = scaleCell(row.cells[1], row.scale);
    expect(shown.value).toBeCloseTo(6, 9);
    expect(shown.delta).toBeCloseTo(2, 9);
    expect(shown.uncertainty).toBeCloseTo(0.5, 9);
    expect(shown.percent).toBe(50);
  });

  it("turns aligned series into chart rows with a column per run", () => {
    const c = makeComparison();
    expect(compareRows(c.series, "gauges.updater.tps")).toEqual([
      { x: 1, r0: 1, r1: 9.5 },
      { x: 2, r0: 1.1, r1: 10 },
      { x: 3, r0: 0.9, r1: 10.2 },
    ]);
    expect(compareRows(c.series, "latency.updater.txn.p99")).toEqual([
      { x: 1, r0: 5, r1: null },
      { x: 2, r0: 6, r1: null },
      { x: 3, r0: null, r1: null },
    ]);
  });

  it("charts server-side latencies in ms, as the other latency charts (the API gives seconds)", () => {
    const c = makeComparison();
    const [a, b] = c.series.runs;
    if (!a || !b) throw new Error("the fixture has two runs");
    a.values["gauges.server.txn_avg_commit_latency_s"] = [0.0042, null, 0.0125];
    b.values["gauges.server.txn_avg_commit_latency_s"] = [0.0006, 0.001, null];
    const commit = compareCharts(c.series).find((chart) => chart.id === "cmp-server-commit");
    expect(commit?.unit).toBe("ms");
    expect(commit?.rows.map((r) => [r.r0, r.r1])).toEqual([
      [expect.closeTo(4.2, 9), expect.closeTo(0.6, 9)],
      [null, expect.closeTo(1, 9)],
      [expect.closeTo(12.5, 9), null],
    ]);
    const units = new Map(compareCharts(c.series).map((chart) => [chart.id, chart.unit]));
    expect(units.get("cmp-tps")).toBe("tx/s");
    expect(units.has("cmp-server-poll")).toBe(false); // no run has it: not drawn empty
  });

  it("overlays tpmC and New-Order p99 of TPC-C runs, and leaves them out when no run is TPC-C", () => {
    const c = makeComparison();
    const [a, b] = c.series.runs;
    if (!a || !b) throw new Error("the fixture has two runs");
    expect(compareCharts(c.series).some((chart) => chart.id.startsWith("cmp-tpmc"))).toBe(false);
    a.values["gauges.tpcc.tpmc"] = [420, 480, null];
    b.values["gauges.tpcc.tpmc"] = [510, null, 530];
    b.values["latency.tpcc.new_order.p99"] = [900, 1200, 1100];
    const tpmc = compareCharts(c.series).find((chart) => chart.id === "cmp-tpmc");
    expect(tpmc?.rows.map((r) => [r.r0, r.r1])).toEqual([
      [420, 510],
      [480, null],
      [null, 530],
    ]);
    const p99 = compareCharts(c.series).find((chart) => chart.id === "cmp-new-order-p99");
    expect(p99?.rows.map((r) => [r.r0, r.r1])).toEqual([
      [null, 900],
      [null, 1200],
      [null, 1100],
    ]);
  });
});
