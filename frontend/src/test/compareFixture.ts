import type { ComparePublic } from "@/lib/types";
import { makeRun } from "./fixtures";

/** Two runs: b writes faster (better) with a higher p99 (worse). */
export function makeComparison(): ComparePublic {
  const a = makeRun("a", { name: "light" });
  const b = makeRun("b", { name: "medium", preset: "medium", config: { ...a.config, updater: { ...a.config.updater, transactions_per_second: 10 } } });
  return {
    runs: [a, b],
    config_diff: [
      { field: "name", values: ["light", "medium"], at_end: ["light", "medium"] },
      { field: "updater.transactions_per_second", values: [1, 10], at_end: [1, 10] },
    ],
    series: {
      elapsed_s: [1, 2, 3],
      runs: [
        { run_id: "a", values: { "gauges.updater.tps": [1, 1.1, 0.9], "latency.updater.txn.p99": [5, 6, null] } },
        { run_id: "b", values: { "gauges.updater.tps": [9.5, 10, 10.2] } },
      ],
    },
    summaries: [a.summary, b.summary],
    breakdowns: [a.summary?.breakdown ?? {}, b.summary?.breakdown ?? {}],
    breakdown_notes: {},
    interfaces: [],
    key_metrics: [
      { metric: "rates.updater.tps", label: "achieved tx/s" },
      { metric: "latency.updater.txn.p99", label: "updater latency p99 (ms)" },
      { metric: "rates.server.poll_avg_latency_s", label: "poll at the server, SPANNER_SYS avg (ms)" },
    ],
    metrics: [
      { metric: "latency.updater.txn.p99", better: "lower", values: [8, 12], delta: [0, 4], percent_change: [0, 50], unavailable: [null, null], uncertainty: [null, 1.2], significant: [null, true] },
      { metric: "duration_s", better: null, values: [60, 60], delta: [0, 0], percent_change: [0, 0], unavailable: [null, null], uncertainty: [null, null], significant: [null, null] },
      { metric: "rates.updater.tps", better: "higher", values: [1, 9.9], delta: [0, 8.9], percent_change: [0, 890], unavailable: [null, null], uncertainty: [null, 0.4], significant: [null, true] },
      { metric: "rates.errors_ps", better: "lower", values: [0, 0.5], delta: [0, 0.5], percent_change: [null, null], unavailable: [null, null], uncertainty: [null, 0.6], significant: [null, false] },
      {
        metric: "rates.server.poll_avg_latency_s",
        better: null,
        values: [null, null],
        delta: [null, null],
        percent_change: [null, null],
        unavailable: ["no complete minute inside the run yet", "no complete minute inside the run yet"],
        uncertainty: [null, null],
        significant: [null, null],
      },
    ],
  };
}
