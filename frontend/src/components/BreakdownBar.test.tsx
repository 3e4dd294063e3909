import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeBreakdown } from "@/test/fixtures";
import { BreakdownBar, BreakdownLegend } from "./BreakdownBar";

describe("BreakdownBar", () => {
  it("draws each part as a segment whose width is its share of the round trip", () => {
    // the session-pool finding: most of the client's time is waiting for a session
    render(<BreakdownBar breakdown={makeBreakdown(2, 70, 20, 8, 1234)} label="reader.read" testId="bar" />);
    const bar = screen.getByTestId("bar");
    const segments = [...bar.querySelectorAll<HTMLElement>(".breakdown-segment")];
    expect(segments.map((s) => [s.dataset.part, s.dataset.pct, s.style.width])).toEqual([
      ["queue", "2.0", "2%"],
      ["session_wait", "70.0", "70%"],
      ["client", "20.0", "20%"],
      ["server", "8.0", "8%"],
    ]);
    expect(segments[1]).toHaveTextContent("70%");
    expect(segments[0]).toHaveTextContent(""); // too narrow for a label; its title says it
    expect(segments[0]).toHaveAttribute("title", "queue behind the pacer: 2.0 % (2.00 ms, measured)");
    expect(bar).toHaveTextContent("reader.read 100 ms mean, 1,234 ops");
  });

  it("leaves out parts of 0 ms and says when there were no operations", () => {
    const { rerender } = render(<BreakdownBar breakdown={makeBreakdown(0, 0, 3, 1)} label="updater.txn" testId="bar" />);
    expect([...screen.getByTestId("bar").querySelectorAll<HTMLElement>(".breakdown-segment")].map((s) => s.dataset.part)).toEqual(["client", "server"]);
    rerender(<BreakdownBar breakdown={undefined} label="updater.txn" testId="bar" />);
    expect(screen.getByTestId("bar")).toHaveTextContent("updater.txn no operations");
    expect(screen.getByTestId("bar").querySelectorAll(".breakdown-segment")).toHaveLength(0);
  });

  it("the legend says how each part was obtained", () => {
    render(<BreakdownLegend breakdown={makeBreakdown(1, 0, 2, 1)} />);
    const items = [...screen.getByTestId("breakdown-legend").querySelectorAll<HTMLElement>("li")];
    expect(items.map((li) => [li.dataset.part, li.dataset.source])).toEqual([
      ["queue", "measured"],
      ["session_wait", "not_applicable"],
      ["client", "derived"],
      ["server", "measured"],
    ]);
    expect(items[1]).toHaveTextContent("session wait: 0.0 %, 0.00 ms (not applicable)");
  });
});

describe("PGAdapter's part", () => {
  it("is labelled derived and footnoted with how it was derived", () => {
    const b = {
      count: 10,
      round_trip_ms: 10,
      parts: [
        { part: "queue" as const, ms: 1, source: "measured" as const },
        { part: "pgadapter" as const, ms: 3, source: "derived" as const },
        { part: "client" as const, ms: 0, source: "not_measured" as const },
        { part: "query_commit" as const, ms: 6, source: "spanner_sys" as const },
      ],
    };
    render(<BreakdownLegend breakdown={b} />);
    const items = [...screen.getByTestId("breakdown-legend").querySelectorAll<HTMLElement>("li")];
    expect(items.map((li) => [li.dataset.part, li.dataset.source])).toEqual([
      ["queue", "measured"],
      ["pgadapter", "derived"],
      ["client", "not_measured"],
      ["query_commit", "spanner_sys"],
    ]);
    expect(items[1]).toHaveTextContent("PGAdapter (derived): 30.0 %, 3.00 ms (derived)");
    expect(screen.getByTestId("breakdown-note-pgadapter")).toHaveTextContent("the driver's round trip less the queue and what the server measured");
  });

  it("has no footnote where no part needs one", () => {
    render(<BreakdownLegend breakdown={makeBreakdown(1, 0, 2, 1)} />);
    expect(screen.queryByTestId("breakdown-note-pgadapter")).toBeNull();
  });
});
