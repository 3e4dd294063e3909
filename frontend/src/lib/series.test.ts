import { describe, expect, it } from "vitest";
import { configEvent, makeSample, T0, statusEvent, targetEvent, watchEvent } from "@/test/fixtures";
import { describeEvent } from "./events";
import type { RunEvent } from "./types";
import { DEFAULT_CONFIG, setPath } from "./knobs";
import { chartsFor, clip, emptyReasons, configMarkers, gauge, hasData, offCharts, participantsFirst, RUN_CHARTS, spreadLabels, toRows } from "./series";

describe("toRows", () => {
  it("picks every chart line out of each sample, keyed by elapsed time", () => {
    const rows = toRows([makeSample(0), makeSample(1)]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ x: 1, tps_target: 10, tps: 9.5, txn_p50: 2, txn_p99: 5, txn_intended_p99: 9, notify_p50: 40, sessions_in_use: 3 });
    expect(rows[1]).toMatchObject({ x: 2, tps: 10.5, txn_p99: 6 });
    // Ops the run did not measure are null, not zero.
    expect(rows[0]?.read_p99).toBeNull();
    expect(rows[0]?.errors_ps).toBeNull();
  });

  it("scales server stats to ms and percent", () => {
    const rows = toRows([makeSample(0, { gauges: { "server.poll_avg_latency_s": 0.0123, "server.poll_cpu_fraction": 0.25 } })]);
    expect(rows[0]?.server_poll_ms).toBeCloseTo(12.3);
    expect(rows[0]?.server_poll_cpu).toBeCloseTo(25);
  });

  it("tells which charts have data", () => {
    const rows = toRows([makeSample(0)]);
    const byId = Object.fromEntries(RUN_CHARTS.map((c) => [c.id, hasData(rows, c)]));
    expect(byId).toMatchObject({ throughput: true, "updater-latency": true, notify: true, "reader-latency": false, errors: false });
  });

  it("charts errors by gRPC code per second, and nothing in an interval without errors", () => {
    const failing = makeSample(1, { interval_s: 2, errors_by_code: { UNAVAILABLE: 6, ABORTED: 1 } });
    const rows = toRows([makeSample(0), failing]);
    expect(rows.map((r) => [r.unavailable_ps, r.aborted_ps, r.deadline_exceeded_ps])).toEqual([
      [null, null, null],
      [3, 0.5, 0],
    ]);
    const errorsChart = RUN_CHARTS.find((c) => c.id === "errors");
    expect(errorsChart && hasData(rows, errorsChart)).toBe(true);
  });

  it("ignores non-finite gauge values", () => {
    expect(gauge("x")(makeSample(0, { gauges: { x: Number.NaN } }))).toBeNull();
  });
});

describe("configMarkers", () => {
  it("marks where the warm-up ends: the end of its last interval", () => {
    const samples = [makeSample(0, { warmup: true }), makeSample(1, { warmup: true }), makeSample(2), makeSample(3)];
    expect(configMarkers([], samples)).toEqual([{ x: 2, label: "warm-up ends" }]);
    expect(configMarkers([], [makeSample(0), makeSample(1)])).toEqual([]);
  });

  it("places config changes at their elapsed time with a short label, skipping status events", () => {
    const events = [
      configEvent(3.5, { "updater.transactions_per_second": 20, "watcher.poll_interval_ms": 500 }),
      statusEvent(4, "paused"),
    ];
    expect(configMarkers(events, [makeSample(0)])).toEqual([{ x: 3.5, label: "tx/s=20, poll=500" }]);
  });

  it("derives elapsed time from the event time when it is missing", () => {
    // An event without elapsed_s (as a client might build one) is placed by its time.
    const event = { kind: "config_change", t: new Date((T0 + 7) * 1000).toISOString(), changes: { "watcher.limit": 100 } } as unknown as RunEvent;
    // makeSample(0) ends at T0 + 1 after 1 s: the run started at T0.
    expect(configMarkers([event], [makeSample(0)])).toEqual([{ x: 7, label: "limit=100" }]);
    expect(configMarkers([{ ...event, t: new Date((T0 + 9) * 1000).toISOString() }], [makeSample(0)])).toEqual([{ x: 9, label: "limit=100" }]);
    expect(configMarkers([event], [])).toEqual([]);
  });
});

describe("target outages on the timeline", () => {
  it("marks the target going down and coming back on the charts, in red and green", () => {
    const events = [statusEvent(0, "running"), targetEvent(5.1, false), configEvent(6, { "watcher.limit": 10 }), targetEvent(7.2, true)];
    expect(configMarkers(events, [makeSample(0)])).toEqual([
      { x: 5.1, label: "target down", color: "#dc2626" },
      { x: 6, label: "limit=10" },
      { x: 7.2, label: "target up", color: "#16a34a" },
    ]);
  });

  it("says what happened to the target in the event list", () => {
    const down = targetEvent(5.1, false, { address: "127.0.0.1:9", restarts: 0, reason: "local Spanner was killed by SIGKILL", restart_in_s: 0.5 });
    const up = targetEvent(7.2, true, { address: "127.0.0.1:9", restarts: 1, down_s: 2.0291 });
    expect(describeEvent(down)).toBe("target down: local Spanner was killed by SIGKILL; restarting it in 0.5 s");
    expect(describeEvent(up)).toBe("target up after 2.0 s (restart 1)");
  });
});

describe("watch switches on the timeline (issue 29)", () => {
  const switched = watchEvent(6.2, { mode: "change_stream", previous: "poll", handover: "2026-11-26T09:00:00.123456+00:00", error: null });
  const refused = watchEvent(9, { mode: "poll", previous: "poll", handover: "", error: "the change_stream watcher could not start: PERMISSION_DENIED: no" });

  it("marks each switch on the charts with the mode it switched to", () => {
    expect(configMarkers([configEvent(6, { "knobs.watch_mode": "change_stream" }), switched], [makeSample(0)])).toEqual([
      { x: 6, label: "watch_mode=change_stream" },
      { x: 6.2, label: "watch: change_stream" },
    ]);
  });

  it("says in the event list where the watch handed over, or why it could not switch", () => {
    expect(describeEvent(switched)).toBe("watch switched poll → change_stream, handing over at 2026-11-26T09:00:00.123456+00:00");
    expect(describeEvent(refused)).toBe("watch stays poll: the change_stream watcher could not start: PERMISSION_DENIED: no");
  });
});

describe("clip", () => {
  it("clips rows to a zoom range", () => {
    const rows = toRows([0, 1, 2, 3].map((i) => makeSample(i)));
    expect(clip(rows, [2, 3]).map((r) => r.x)).toEqual([2, 3]);
    expect(clip(rows, null)).toHaveLength(4);
  });
});

describe("emptyReasons", () => {
  it("says why a chart stays empty for the run's config", () => {
    expect(emptyReasons(DEFAULT_CONFIG)["reader-latency"]).toBe("Readers are off in this run.");
    expect(emptyReasons(setPath(DEFAULT_CONFIG, "reader.enabled", true))["reader-latency"]).toBeUndefined();
    expect(emptyReasons(setPath(DEFAULT_CONFIG, "watcher.enabled", false)).poll).toBe("Watchers are off in this run.");
    expect(emptyReasons(null)).toEqual({});
  });
});

describe("spreadLabels", () => {
  it("joins the labels of markers too close to print apart, and keeps every line", () => {
    const markers = [
      { x: 31.5, label: "target up", color: "green" },
      { x: 31, label: "target down", color: "red" },
      { x: 50, label: "write rate → 10" },
    ];
    expect(spreadLabels(markers, 2)).toEqual([
      { x: 31, label: "target down · target up", color: "red" },
      { x: 31.5, label: "", color: "green" },
      { x: 50, label: "write rate → 10" },
    ]);
    expect(spreadLabels(markers, 0.1).map((m) => m.label)).toEqual(["target down", "target up", "write rate → 10"]);
  });
});

describe("chartsFor", () => {
  it("leads the change watcher's page with its report's charts, the poll's server time among them, and ends with what is off", () => {
    const ids = chartsFor("change_watcher", offCharts(DEFAULT_CONFIG)).map((c) => c.id);
    expect(ids.slice(0, 5)).toEqual(["throughput", "notify", "poll", "poll-server", "server-poll"]);
    expect(DEFAULT_CONFIG.reader.enabled).toBe(false);
    expect(ids[ids.length - 1]).toBe("reader-latency");
    expect([...ids].sort()).toEqual(RUN_CHARTS.map((c) => c.id).sort());
  });

  it("leads a participants run with the commit's server stats, and a session-pool run with the pool", () => {
    expect(chartsFor("participants")[0]?.id).toBe("server-txn");
    expect(chartsFor("session_pool")[0]?.id).toBe("sessions");
  });

  it("charts the poll's server-timing apart from the client's poll duration", () => {
    const rows = toRows([makeSample(0, { latency: { "watcher.poll_server": { count: 3, p50: 4.6, p90: 5, p95: 5, p99: 6, p999: 6, max: 6, mean: 4.8 } } })]);
    expect(rows[0]?.poll_server_p50).toBe(4.6);
  });
});

describe("participantsFirst", () => {
  it("leads a run of the built-in participants definition (or its PostgreSQL twin) with the participants chart, as a participants run stored before the switch", () => {
    const origin = (definition: string, source: "builtin" | "saved" = "builtin") => ({ source, definition, saved_version: source === "saved" ? 1 : null });
    expect(participantsFirst({ workload: "definition", definition_origin: origin("participants") })).toBe(true);
    expect(participantsFirst({ workload: "definition", definition_origin: origin("participants_pg") })).toBe(true);
    expect(participantsFirst({ workload: "participants", definition_origin: null })).toBe(true);
    expect(participantsFirst({ workload: "definition", definition_origin: origin("change_watcher") })).toBe(false);
    expect(participantsFirst({ workload: "definition", definition_origin: origin("participants", "saved") })).toBe(false);
    expect(participantsFirst(null)).toBe(false);
  });
});
