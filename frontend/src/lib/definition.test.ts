import { describe, expect, it } from "vitest";
import { definitionCharts, definitionOrigin, errorCodes, offOperations } from "./definition";
import { toRows } from "./series";
import type { RunConfig, Sample, WorkloadDefinition } from "./types";

const definition = { name: "library", operations: { lend: { rate: 5 }, browse: { rate: 40 }, report: { concurrency: 2 } } } as unknown as WorkloadDefinition;

describe("a definition run's charts", () => {
  it("draws each operation's target against achieved and its p50/p99 from the actual and the intended start, then errors by code", () => {
    const sample = {
      elapsed_s: 3,
      interval_s: 1,
      gauges: { "op.lend.target_ps": 5, "op.lend.ps": 4.5, errors_ps: 2 },
      latency: { "op.lend": { p50: 3, p99: 9 }, "op.lend_intended": { p50: 4, p99: 30 } },
      errors_by_code: { ABORTED: 2 },
    } as unknown as Sample;
    const charts = definitionCharts(definition, errorCodes([sample]));
    expect(charts.map((c) => c.id)).toEqual(["op-lend-throughput", "op-lend-latency", "op-browse-throughput", "op-browse-latency", "op-report-throughput", "op-report-latency", "errors"]);
    const [row] = toRows([sample], charts);
    expect(row).toMatchObject({ x: 3, op_lend_target: 5, op_lend_ps: 4.5, op_lend_p50: 3, op_lend_p99: 9, op_lend_intended_p50: 4, op_lend_intended_p99: 30, op_browse_ps: null, errors_ps: 2, err_ABORTED: 2 });
  });
});

describe("a definition run with a watch and operations left off", () => {
  const watched = {
    name: "change_watcher",
    operations: { write: { rate: 5 }, write_dml: { rate: 5, enabled: false }, point_read: { rate: 10, enabled: false } },
    watch: { table: "Singers" },
  } as unknown as WorkloadDefinition;

  it("charts the watch's notification latency and lag, polls and poll time at the server after the operations that are on, and those off last", () => {
    const charts = definitionCharts(watched, [], ["write_dml"]);
    expect(charts.map((c) => c.id)).toEqual([
      "op-write-throughput",
      "op-write-latency",
      "op-point_read-throughput",
      "op-point_read-latency",
      "notify",
      "poll",
      "poll-server",
      "server-poll",
      "errors",
      "op-write_dml-throughput",
      "op-write_dml-latency",
    ]);
    const sample = {
      elapsed_s: 2,
      interval_s: 1,
      gauges: { "watcher.lag_ms": 1012, "watcher.rows_per_poll": 40 },
      latency: { "watcher.notify": { p50: 480, p99: 990 }, "watcher.poll": { p50: 8, p99: 30 }, "watcher.poll_server": { p50: 1.3, p99: 3.5 } },
    } as unknown as Sample;
    const [row] = toRows([sample], charts);
    expect(row).toMatchObject({ notify_p50: 480, notify_p99: 990, lag_ms: 1012, poll_p50: 8, poll_p99: 30, rows_per_poll: 40, poll_server_p50: 1.3, poll_server_p99: 3.5 });
    expect(definitionCharts({ ...watched, watch: null } as unknown as WorkloadDefinition).map((c) => c.id)).not.toContain("notify");
  });

  it("takes an operation as off by the run's override, else by the definition", () => {
    const config = { definition: watched, operations: { write_dml: { enabled: null }, point_read: { enabled: true }, write: { enabled: false } } } as unknown as RunConfig;
    expect(offOperations(config)).toEqual(["write", "write_dml"]);
    expect(offOperations({ definition: watched } as unknown as RunConfig)).toEqual(["write_dml", "point_read"]);
    expect(offOperations(null)).toEqual([]);
  });
});

describe("definitionOrigin", () => {
  it("names a saved definition with its version, a built-in without, and nothing for an inline one", () => {
    expect(definitionOrigin({ definition_origin: { source: "saved", definition: "my_shop", saved_version: 2 } })).toBe("my_shop v2 (saved)");
    expect(definitionOrigin({ definition_origin: { source: "builtin", definition: "shop", saved_version: null } })).toBe("shop (built-in)");
    expect(definitionOrigin({ definition_origin: null })).toBeNull();
    expect(definitionOrigin({})).toBeNull(); // a run stored before runs recorded it
  });
});
