import { describe, expect, it } from "vitest";
import type { CompareSeries } from "@/lib/types";
import { makeComparison } from "@/test/compareFixture";
import { configEvent, statusEvent, targetEvent } from "@/test/fixtures";
import { compareCharts, compareMarkers, compareRows, metricRows, operationOverlays, parseIds, scaleCell } from "./compare";

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

  it("overlays each operation two or more runs have: a line per run of achieved/s and of p99, labelled by run", () => {
    const series: CompareSeries = {
      elapsed_s: [1, 2],
      runs: [
        { run_id: "a", values: { "gauges.op.place_order.ps": [50, 49], "latency.op.place_order.p99": [7, 8], "gauges.op.recent_orders.ps": [200, 199] } },
        { run_id: "b", values: { "gauges.op.place_order.ps": [90, null], "latency.op.place_order.p99": [11, 12] } },
        { run_id: "c", values: { "gauges.op.recent_orders.ps": [150, 151], "gauges.op.only_c.ps": [1, 1] } },
      ],
    };
    const overlays = operationOverlays(series, [["place_order", "recent_orders"], ["place_order"], ["recent_orders", "only_c"]], ["#1 x", "#2 y", "#3 z"]);
    expect(overlays.map((o) => o.id)).toEqual(["cmp-op-place_order", "cmp-op-recent_orders"]);
    const [place, recent] = overlays;
    expect(place?.lines.map((l) => [l.key, l.label, l.axis ?? "left", l.color])).toEqual([
      ["t0", "#1 x achieved/s", "left", "#3b82f6"],
      ["p0", "#1 x p99", "right", "#3b82f6"],
      ["t1", "#2 y achieved/s", "left", "#f59e0b"],
      ["p1", "#2 y p99", "right", "#f59e0b"],
    ]);
    expect(place?.rows).toEqual([
      { x: 1, t0: 50, p0: 7, t1: 90, p1: 11 },
      { x: 2, t0: 49, p0: 8, t1: null, p1: 12 },
    ]);
    expect(recent?.lines.map((l) => l.key)).toEqual(["t0", "p0", "t2", "p2"]);
    expect(recent?.rows[0]).toEqual({ x: 1, t0: 200, p0: null, t2: 150, p2: null });
  });

  it("overlays nothing for runs that are not definitions' or share no operation", () => {
    const series: CompareSeries = { elapsed_s: [1], runs: [{ run_id: "a", values: {} }, { run_id: "b", values: {} }] };
    expect(operationOverlays(series, [[], []], [])).toEqual([]);
    expect(operationOverlays(series, [["w"], ["r"]], [])).toEqual([]);
  });

  it("leaves out an operation that no run ran (off in each, so without a value)", () => {
    const series: CompareSeries = {
      elapsed_s: [1, 2],
      runs: [
        { run_id: "a", values: { "gauges.op.write.ps": [5, 6] } },
        { run_id: "b", values: { "gauges.op.write.ps": [4, 5], "gauges.op.write_dml.ps": [null, null] } },
      ],
    };
    const overlays = operationOverlays(series, [["write", "write_dml"], ["write", "write_dml"]], ["#1", "#2"]);
    expect(overlays.map((o) => o.id)).toEqual(["cmp-op-write"]);
  });
});
