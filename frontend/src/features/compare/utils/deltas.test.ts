import { describe, expect, it } from "vitest";
import { deltaTone, metricDirection } from "./deltas";

describe("metricDirection", () => {
  it.each([
    ["latency.updater.txn.p99", "lower"],
    ["updater.txn.p50", "lower"],
    ["watcher.notify.p50", "lower"],
    ["watcher.lag_ms", "lower"],
    ["errors_ps", "lower"],
    ["aborts_ps", "lower"],
    ["sessions.waiting", "lower"],
    ["updater.tps", "higher"],
    ["rates.updater.mutations_ps", "higher"],
    ["reader.rps", "higher"],
    ["watcher.changes_ps", "higher"],
    ["sessions.idle", "neutral"],
  ])("%s is better %s", (metric, direction) => {
    expect(metricDirection(metric)).toBe(direction);
  });
});

describe("deltaTone", () => {
  it("colours lower latency better and higher latency worse", () => {
    expect(deltaTone("updater.txn.p99", -2, -20)).toBe("better");
    expect(deltaTone("updater.txn.p99", 3, 30)).toBe("worse");
  });

  it("colours higher throughput better and lower throughput worse", () => {
    expect(deltaTone("updater.tps", 5, 50)).toBe("better");
    expect(deltaTone("updater.tps", -5, -50)).toBe("worse");
  });

  it("calls changes under 1 % the same, and says nothing without a delta or a direction", () => {
    expect(deltaTone("updater.tps", 0.05, 0.5)).toBe("same");
    expect(deltaTone("updater.tps", 0, 0)).toBe("same");
    expect(deltaTone("updater.tps", null, null)).toBe("neutral");
    expect(deltaTone("sessions.idle", 5, 50)).toBe("neutral");
  });

  it("works out the relative change from the baseline when no percent is given", () => {
    expect(deltaTone("updater.txn.p99", 0.01, null, 10)).toBe("same");
    expect(deltaTone("updater.txn.p99", 1, null, 10)).toBe("worse");
    expect(deltaTone("updater.txn.p99", -1, null, 0)).toBe("better");
  });
});
