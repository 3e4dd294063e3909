import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_CONFIG, setPath } from "@/lib/knobs";
import type { RunEvent } from "@/lib/types";
import { configEvent, fetchStub, makeRun } from "@/test/fixtures";
import { ControlPanel } from "./ControlPanel";

describe("ControlPanel", () => {
  it("sends only the changed knobs and shows them confirmed once the timeline records them", async () => {
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
});
