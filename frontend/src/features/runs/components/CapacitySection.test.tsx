import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { CapacityResult } from "@/lib/types";
import { CapacitySection } from "./CapacitySection";

const step = (rate: number, achieved: number, p99: number, held: boolean): CapacityResult["steps"][number] => ({
  rate,
  achieved,
  p50: p99 / 4,
  p95: p99 / 2,
  p99,
  errors_pct: 0,
  server_cpu: 0.5,
  client_cpu: null,
  client_cpu_total: null,
  behind: 0,
  in_flight: null,
  machine_cpu: null,
  seconds: 10,
  stable: rate !== 300,
  held,
  broke_by: held ? [] : ["p99 120.0 ms is above 100 ms"],
});

const CAPACITY: CapacityResult = {
  knee: 200,
  limited_by: "database",
  broke_by: ["p99 120.0 ms is above 100 ms"],
  note: "the database broke at 300/s",
  steps: [step(100, 99.5, 10, true), step(200, 201, 20, true), step(300, 280, 120, false)],
};

describe("CapacitySection", () => {
  it("names the knee and the limit, draws one point per step with the knee marked, and lists the steps", () => {
    render(<CapacitySection capacity={CAPACITY} />);
    expect(screen.getByTestId("capacity-knee").textContent).toBe("200/s");
    expect(screen.getByTestId("capacity-limit").textContent).toBe("database");
    const chart = screen.getByTestId("chart-capacity");
    expect(chart.getAttribute("data-points")).toBe("3");
    expect(chart.getAttribute("data-knee")).toBe("200"); // the knee, by its rate
    const broke = within(screen.getByTestId("capacity-step-300")).getAllByRole("cell").map((c) => c.textContent);
    expect(broke).toEqual(["300", "280", "30", "60", "120", "0", "50", "-", "broke: p99 120.0 ms is above 100 ms (not stable)"]);
  });

  it("says when the first step broke", () => {
    render(<CapacitySection capacity={{ ...CAPACITY, knee: null, steps: [step(100, 50, 500, false)] }} />);
    expect(screen.getByTestId("capacity-knee").textContent).toBe("none (the first step broke)");
    expect(screen.getByTestId("chart-capacity").getAttribute("data-knee")).toBe("");
  });
});
