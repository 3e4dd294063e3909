import { describe, expect, it } from "vitest";
import { definitionCharts, definitionOrigin, errorCodes } from "./definition";
import { toRows } from "./series";
import type { Sample, WorkloadDefinition } from "./types";

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

describe("a definition with a watch", () => {
  it("charts the watch's notification latency and lag before the errors: they were measured and not drawn", () => {
    const watched = { ...definition, watch: { table: "Loans", timestamp: "Updated" } } as unknown as WorkloadDefinition;
    const sample = { elapsed_s: 2, interval_s: 1, gauges: { "watcher.lag_ms": 1010 }, latency: { "watcher.notify": { p50: 480, p99: 990 } } } as unknown as Sample;
    const charts = definitionCharts(watched);
    expect(charts.map((c) => c.id).slice(-2)).toEqual(["notify", "errors"]);
    expect(toRows([sample], charts)[0]).toMatchObject({ notify_p50: 480, notify_p99: 990, lag_ms: 1010 });
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
