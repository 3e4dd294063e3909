import { describe, expect, it } from "vitest";
import { makeBreakdown, makeSample } from "@/test/fixtures";
import { breakdownOps, breakdownRows, fromActualStart, partsIn, shares } from "./breakdown";

describe("breakdown transforms", () => {
  it("lists every operation kind that has operations, any name (tpcc.* included), in name order", () => {
    const samples = [
      makeSample(0, { breakdown: { "tpcc.payment": makeBreakdown(0, 0, 1, 1), "reader.read": makeBreakdown(0, 0, 1, 1) } }),
      makeSample(1, { breakdown: { "tpcc.new_order": makeBreakdown(0, 0, 1, 1), "watcher.poll": { count: 0, round_trip_ms: 0, parts: [] } } }),
    ];
    expect(breakdownOps(samples)).toEqual(["reader.read", "tpcc.new_order", "tpcc.payment"]);
  });

  it("makes one row per sample: the mean parts and the client and server p50/p99", () => {
    const sample = makeSample(2, {
      breakdown: { "reader.read": makeBreakdown(0.5, 7, 2, 0.5) },
      latency: {
        "reader.read": { count: 9, p50: 8, p90: 20, p95: 25, p99: 30, p999: 31, max: 32, mean: 10 },
        "reader.read_server": { count: 9, p50: 0.4, p90: 0.6, p95: 0.7, p99: 0.9, p999: 1, max: 1, mean: 0.5 },
      },
    });
    expect(breakdownRows([sample], "reader.read")).toEqual([
      { x: 3, queue: 0.5, session_wait: 7, client: 2, server: 0.5, client_p50: 8, client_p99: 30, server_p50: 0.4, server_p99: 0.9 },
    ]);
    expect(breakdownRows([makeSample(0, { breakdown: {}, latency: {} })], "reader.read")).toEqual([
      { x: 1, client_p50: null, client_p99: null, server_p50: null, server_p99: null },
    ]);
  });

  it("gives each part its share of the round trip, in the report's order", () => {
    const split = {
      count: 4,
      round_trip_ms: 10,
      parts: [
        { part: "query_commit" as const, ms: 2, source: "spanner_sys" as const },
        { part: "queue" as const, ms: 1, source: "measured" as const },
        { part: "client" as const, ms: 5, source: "derived" as const },
        { part: "server_frontend" as const, ms: 2, source: "derived" as const },
      ],
    };
    expect(shares(split).map((s) => [s.part, s.pct, s.source])).toEqual([
      ["queue", 10, "measured"],
      ["client", 50, "derived"],
      ["server_frontend", 20, "derived"],
      ["query_commit", 20, "spanner_sys"],
    ]);
    expect(shares(undefined)).toEqual([]);
    expect(partsIn([split, makeBreakdown(1, 1, 1, 1)])).toEqual(["queue", "session_wait", "client", "server", "server_frontend", "query_commit"]);
  });

  it("from the actual start: the queue left out of the parts and of the round trip", () => {
    const b = fromActualStart(makeBreakdown(90, 8, 1.5, 0.5));
    expect(b?.round_trip_ms).toBeCloseTo(10);
    expect(shares(b).map((s) => [s.part, s.pct])).toEqual([
      ["session_wait", 80],
      ["client", 15],
      ["server", 5],
    ]);
    expect(fromActualStart(undefined)).toBeUndefined();
  });
});
