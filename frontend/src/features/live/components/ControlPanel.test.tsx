import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_CONFIG, setPath } from "@/lib/knobs";
import type { RunConfig, RunEvent } from "@/lib/types";
import { configEvent, fetchStub, makeRun } from "@/test/fixtures";
import { ControlPanel } from "./ControlPanel";

/** PATCH /runs/r1/config answered with a running run; the bodies sent, in order. */
function recordPatches(): unknown[] {
  const patches: unknown[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(
      fetchStub({
        "PATCH /runs/r1/config": (_url, init) => {
          patches.push(JSON.parse(String(init?.body)));
          return { body: makeRun("r1", { status: "running" }) };
        },
      }),
    ),
  );
  return patches;
}

describe("ControlPanel", () => {
  it("sends only the changed knobs and shows them confirmed once the timeline records them", async () => {
    const patches = recordPatches();
    const events: RunEvent[] = [];
    const { rerender } = render(<ControlPanel runId="r1" config={DEFAULT_CONFIG} events={events} editable />);
    fireEvent.change(screen.getByTestId("control-updater.transactions_per_second"), { target: { value: "20" } });
    fireEvent.click(screen.getByTestId("control-watcher.table_hint"));
    expect(screen.getByTestId("pending-changes")).toHaveTextContent("transactions_per_second: 1 → 20; table_hint: on → off");
    fireEvent.click(screen.getByTestId("apply-config"));
    await waitFor(() => expect(patches).toEqual([{ updater: { transactions_per_second: 20 }, watcher: { table_hint: false } }]));
    expect(screen.getByTestId("apply-status")).toHaveAttribute("data-state", "pending");

    const applied = setPath(setPath(DEFAULT_CONFIG, "updater.transactions_per_second", 20), "watcher.table_hint", false);
    rerender(<ControlPanel runId="r1" config={applied} events={[configEvent(12, { "updater.transactions_per_second": 20, "watcher.table_hint": false })]} editable />);
    expect(screen.getByTestId("apply-status")).toHaveAttribute("data-state", "confirmed");
    expect(screen.getByTestId("apply-status")).toHaveTextContent("Confirmed: tx/s=20, hint=off at t+12s");
    expect(screen.getByTestId("control-updater.transactions_per_second")).toHaveValue(20);
  });

  it("explains an out-of-range value and does not send it", () => {
    const fetch = vi.fn();
    vi.stubGlobal("fetch", fetch);
    render(<ControlPanel runId="r1" config={DEFAULT_CONFIG} events={[]} editable />);
    fireEvent.change(screen.getByTestId("control-watcher.poll_interval_ms"), { target: { value: "5" } });
    expect(screen.getByTestId("error-watcher.poll_interval_ms")).toHaveTextContent("Poll interval must be at least 10 ms.");
    expect(screen.getByTestId("apply-config")).toBeDisabled();
    expect(fetch).not.toHaveBeenCalled();
  });

  it("shows the server's refusal, e.g. 409 when the run is no longer running", async () => {
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "PATCH /runs/r1/config": () => ({ status: 409, body: { detail: "run r1 is finished, not running" } }) })));
    render(<ControlPanel runId="r1" config={DEFAULT_CONFIG} events={[]} editable />);
    fireEvent.change(screen.getByTestId("control-watcher.limit"), { target: { value: "100" } });
    fireEvent.click(screen.getByTestId("apply-config"));
    expect(await screen.findByTestId("apply-error")).toHaveTextContent("run r1 is finished, not running");
    expect(screen.queryByTestId("apply-status")).toBeNull();
  });

  it("generates a definition run's controls from its definition: each knob's bounds, unit and live flag, and each operation's pacing", async () => {
    const patches = recordPatches();
    const config = {
      ...DEFAULT_CONFIG,
      workload: "definition",
      definition: {
        name: "library",
        knobs: {
          lend_rate: { default: 10, min: 1, max: 250, unit: "loans/s", help: "loans per second", live: true },
          books: { default: 1000, min: 10, max: 5000, help: "books on the shelves", live: false },
        },
        operations: {
          lend: { rate: "$lend_rate", transaction: "read_write", steps: [] },
          browse: { rate: 40, transaction: "read_only", steps: [] },
          report: { concurrency: 2, transaction: "read_only", steps: [] },
        },
      },
      knobs: { lend_rate: 30 },
      operations: {},
    } as unknown as RunConfig;
    render(<ControlPanel runId="r1" config={config} events={[]} editable />);
    // No report-workload knob: the definition's own, then the pacing of operations not paced by a knob.
    expect(screen.queryByTestId("control-updater.transactions_per_second")).toBeNull();
    const lend = screen.getByTestId("control-knobs.lend_rate");
    expect(lend).toHaveValue(30);
    expect(screen.getByLabelText("lend_rate slider")).toHaveAttribute("max", "250");
    expect(screen.getByText("loans per second")).toBeInTheDocument();
    fireEvent.change(lend, { target: { value: "300" } });
    expect(screen.getByTestId("error-knobs.lend_rate")).toHaveTextContent("lend_rate must be at most 250 loans/s.");
    expect(screen.getByTestId("apply-config")).toBeDisabled();
    // live: false in the definition: shown, fixed.
    expect(screen.getByTestId("control-knobs.books")).toBeDisabled();
    expect(screen.getByTestId("control-knobs.books")).toHaveValue(1000);
    expect(screen.getByTestId("fixed-knobs.books")).toHaveTextContent("(fixed once the run starts)");
    expect(screen.queryByTestId("control-operations.lend.rate")).toBeNull();
    expect(screen.getByTestId("control-operations.report.concurrency")).toHaveValue(2);

    fireEvent.change(lend, { target: { value: "50" } });
    fireEvent.change(screen.getByTestId("control-operations.browse.rate"), { target: { value: "60" } });
    fireEvent.click(screen.getByTestId("apply-config"));
    await waitFor(() => expect(patches).toEqual([{ knobs: { lend_rate: 50 }, operations: { browse: { rate: 60 } } }]));
  });

  it("switches a watch between polling and its change stream, and changes its heartbeat and readers, live (issue 29)", async () => {
    const patches = recordPatches();
    const config = {
      ...DEFAULT_CONFIG,
      workload: "definition",
      definition: {
        name: "watched",
        knobs: {
          watch_mode: { default: "poll", choices: ["poll", "change_stream"], help: "how the watchers learn of changes" },
          heartbeat: { default: 1000, min: 100, max: 300000, unit: "ms" },
          watchers: { default: 1, min: 1, max: 37 },
        },
        operations: { write: { rate: 5, transaction: "single_use", steps: [] } },
        watch: { table: "T", timestamp: "Ts", mode: "$watch_mode", heartbeat: "$heartbeat", watchers: "$watchers" },
      },
      knobs: {},
      operations: {},
    } as unknown as RunConfig;
    render(<ControlPanel runId="r1" config={config} events={[]} editable />);
    const mode = screen.getByTestId("control-knobs.watch_mode");
    expect([...mode.querySelectorAll("option")].map((o) => o.textContent)).toEqual(["poll", "change_stream"]);
    expect(mode).toHaveValue("poll");
    expect(mode).toBeEnabled();
    fireEvent.change(mode, { target: { value: "change_stream" } });
    fireEvent.change(screen.getByTestId("control-knobs.heartbeat"), { target: { value: "250" } });
    fireEvent.change(screen.getByTestId("control-knobs.watchers"), { target: { value: "2" } });
    fireEvent.click(screen.getByTestId("apply-config"));
    await waitFor(() => expect(patches).toEqual([{ knobs: { watch_mode: "change_stream", heartbeat: 250, watchers: 2 } }]));
  });
});
