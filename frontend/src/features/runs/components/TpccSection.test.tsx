import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { chartsFor, RUN_CHARTS, TPCC_CHARTS, toRows } from "@/lib/series";
import type { Sample, TpccSummary } from "@/lib/types";
import { makeSample } from "@/test/fixtures";
import { TpccSection } from "./TpccSection";

const figures = (completed: number, share: number, standard: number, extra: Partial<TpccSummary["by_type"][string]> = {}) => ({
  completed,
  share_pct: share,
  standard_pct: standard,
  rollbacks: 0,
  aborts: 0,
  retries: 0,
  errors: 0,
  skipped: 0,
  ...extra,
});

const TPCC: TpccSummary = {
  warehouses: 1,
  tpmc: 1234.5,
  by_type: {
    new_order: figures(450, 45.1, 45, { rollbacks: 4, aborts: 30, retries: 30 }),
    payment: figures(428, 42.9, 43),
    order_status: figures(40, 4, 4),
    delivery: figures(40, 4, 4),
    stock_level: figures(40, 4, 4),
  },
  consistency: { condition_2: "failed: warehouse 1 district 3: D_NEXT_O_ID - 1 = 39", condition_1: "ok" },
  consistency_error: null,
};

describe("TpccSection", () => {
  it("shows tpmC, the mix against the standard and each condition's verdict", () => {
    render(<TpccSection tpcc={TPCC} />);
    expect(screen.getByTestId("tpcc-tpmc").textContent).toBe("1,235");
    const row = within(screen.getByTestId("tpcc-row-new_order")).getAllByRole("cell").map((c) => c.textContent);
    expect(row).toEqual(["450", "45.1", "45", "4", "30", "30", "0"]);
    expect(screen.getByTestId("tpcc-condition_1").textContent).toBe("ok");
    expect(screen.getByTestId("tpcc-condition_2").className).toBe("bad");
    expect(screen.getByTestId("tpcc-condition_2").textContent).toContain("district 3");
  });

  it("says why consistency was not checked", () => {
    render(<TpccSection tpcc={{ ...TPCC, consistency: {}, consistency_error: "not checked: the run did not stop normally" }} />);
    expect(within(screen.getByTestId("tpcc-consistency")).getByRole("cell").textContent).toBe("not checked: the run did not stop normally");
  });
});

describe("TPC-C charts", () => {
  it("chart tpmC and each type's latency, and only for TPC-C runs", () => {
    const sample: Sample = makeSample(0, {
      gauges: { "tpcc.tpmc": 900, "updater.tps": 33 },
      latency: { "tpcc.payment": { count: 5, p50: 4, p90: 5, p95: 6, p99: 9, p999: 9, max: 9, mean: 4 } },
    });
    const [row] = toRows([sample]);
    expect([row?.tpmc, row?.tpcc_tps, row?.tpcc_payment_p99, row?.tpcc_new_order_p99]).toEqual([900, 33, 9, null]);
    const ids = (w: "tpcc" | "change_watcher") => chartsFor(w).map((c) => c.id);
    expect(ids("tpcc").slice(0, 3)).toEqual(TPCC_CHARTS.map((c) => c.id));
    expect(ids("tpcc")).not.toContain("updater-latency");
    expect([...ids("change_watcher")].sort()).toEqual(RUN_CHARTS.map((c) => c.id).sort()); // all of them, its own first
  });
});
