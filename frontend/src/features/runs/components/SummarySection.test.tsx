import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeSummary } from "@/test/fixtures";
import { SummarySection } from "./SummarySection";

describe("SummarySection", () => {
  it("lists each worker with its runtime, pid, host, node, operations and client CPU per operation", () => {
    const summary = makeSummary({
      workers: [
        { index: 0, runtime: "python", pid: 4242, host: "box", node: null, operations: 1200, cpu_s: 1.5, cpu_ms_per_op: 1.25 },
        { index: 1, runtime: "go", pid: 4343, host: "box", node: "node-b", operations: 3000, cpu_s: 0.3, cpu_ms_per_op: 0.1 },
      ],
    });
    render(<SummarySection summary={summary} />);
    const rows = within(screen.getByTestId("workers")).getAllByTestId("worker-row");
    expect(rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent))).toEqual([
      ["0", "python", "4242", "box", "—", "1,200", "1.50", "1.250"],
      ["1", "go", "4343", "box", "node-b", "3,000", "0.30", "0.100"],
    ]);
  });

  it("shows no workers table for a summary without workers (runs stored before it existed)", () => {
    render(<SummarySection summary={makeSummary({ workers: [] })} />);
    expect(screen.queryByTestId("workers")).toBeNull();
  });

  it("shows a server latency average in ms, other averages as they are", () => {
    render(<SummarySection summary={makeSummary({ rates: { "server.commit_latency_s": 0.00634, "updater.tps": 4.87 } })} />);
    const rows = screen.getAllByTestId("average-row").map((r) => [...r.children].map((c) => c.textContent));
    expect(rows).toEqual([
      ["server.commit_latency", "6.34 ms"],
      ["updater.tps", "4.87"],
    ]);
  });

  it("shows a SPANNER_SYS figure the run has no minute of as n/a with the reason, never a number", () => {
    const summary = makeSummary({
      rates: { "updater.tps": 4.87 },
      unavailable: { "server.poll_avg_latency_s": "no complete minute inside the run yet" },
    });
    render(<SummarySection summary={summary} />);
    const rows = screen.getAllByTestId("unavailable-row").map((r) => [...r.children].map((c) => c.textContent));
    expect(rows).toEqual([["server.poll_avg_latency", "n/a"]]);
    expect(screen.getByTestId("unavailable-reasons")).toHaveTextContent("n/a: no complete minute inside the run yet");
  });

  it("shows a change cost the target does not give as n/a with each reason (issue 29)", () => {
    const summary = makeSummary({
      rates: { "watcher.lag_ms": 5 },
      unavailable: {
        "server.cpu_per_change_ms": "the emulator counts no server CPU",
        "server.watch_cpu_per_change_ms": "the emulator has no SPANNER_SYS statistics",
      },
    });
    render(<SummarySection summary={summary} />);
    const rows = screen.getAllByTestId("unavailable-row").map((r) => [...r.children].map((c) => c.textContent));
    expect(rows.map(([, value]) => value)).toEqual(["n/a", "n/a"]);
    expect(screen.getAllByTestId("unavailable-row").map((r) => r.children[1]?.getAttribute("title"))).toEqual([
      "the emulator counts no server CPU",
      "the emulator has no SPANNER_SYS statistics",
    ]);
    expect(screen.getByTestId("unavailable-reasons")).toHaveTextContent(
      "n/a: the emulator counts no server CPU; the emulator has no SPANNER_SYS statistics",
    );
  });
});
