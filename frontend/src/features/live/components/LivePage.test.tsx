import { act, fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_CONFIG } from "@/lib/knobs";
import { FakeWebSocket } from "@/test/fakeWebSocket";
import { configEvent, fetchStub, makeRun, makeSample } from "@/test/fixtures";
import { LivePage } from "./LivePage";

const run = makeRun("r1", { status: "running", summary: null, current_config: DEFAULT_CONFIG });

const ORIGIN_REFUSED = "Origin 'http://127.0.0.1:5173' may not change anything or open live streams here: only the server's own pages may.";

function renderLive(stopped: string[] = [], originStatus = 204) {
  vi.stubGlobal("WebSocket", FakeWebSocket);
  vi.stubGlobal(
    "fetch",
    vi.fn(
      fetchStub({
        "GET /runs/r1": () => ({ body: run }),
        "POST /health/origin": () => (originStatus === 204 ? { status: 204 } : { status: originStatus, body: { detail: ORIGIN_REFUSED } }),
        "POST /runs/r1/stop": () => {
          stopped.push("r1");
          return { body: { ...run, status: "stopping" } };
        },
      }),
    ),
  );
  render(
    <MemoryRouter initialEntries={["/runs/r1/live"]}>
      <Routes>
        <Route path="/runs/:id/live" element={<LivePage />} />
      </Routes>
    </MemoryRouter>,
  );
  return FakeWebSocket.last();
}

function snapshot(samples = [0, 1, 2, 3, 4, 5].map((i) => makeSample(i))) {
  return { type: "snapshot", run, events: [configEvent(3.5, { "updater.transactions_per_second": 20 })], samples, total_samples: samples.length, downsampled: false };
}

describe("LivePage", () => {
  beforeEach(() => FakeWebSocket.reset());
  afterEach(() => vi.useRealTimers());

  it("shows the snapshot's figures, then a banner while the connection is lost, and rebuilds on reconnect", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const ws = renderLive();
    act(() => ws.open());
    act(() => ws.receive(snapshot()));
    expect(screen.getByTestId("chart-throughput")).toHaveAttribute("data-points", "6");
    expect(screen.getByTestId("chart-throughput")).toHaveAttribute("data-markers", "1");
    expect(screen.getByTestId("elapsed")).toHaveTextContent("6s");
    expect(screen.getByTestId("achieved-tps")).toHaveTextContent("14.5");
    expect(screen.queryByTestId("live-banner")).toBeNull();

    act(() => ws.drop(1006));
    expect(screen.getByTestId("live-banner")).toHaveTextContent(/Live connection lost\. Reconnecting in \ds \(attempt 1\)/);
    fireEvent.click(screen.getByRole("button", { name: "Retry now" }));
    const again = FakeWebSocket.last();
    expect(again).not.toBe(ws);
    act(() => again.open());
    act(() => again.receive(snapshot([0, 1, 2, 3, 4, 5, 6, 7].map((i) => makeSample(i)))));
    expect(screen.queryByTestId("live-banner")).toBeNull();
    expect(screen.getByTestId("chart-throughput")).toHaveAttribute("data-points", "8");
  });

  it("says why when the server refuses this page's origin, instead of reconnecting forever", async () => {
    const ws = renderLive([], 403);
    act(() => ws.drop(1006));
    expect(await screen.findByText(`The server refused this page's live stream: ${ORIGIN_REFUSED}`)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Retry now" })).toBeNull();
  });

  it("stops the run and says when it has ended", async () => {
    const stopped: string[] = [];
    const ws = renderLive(stopped);
    act(() => ws.open());
    act(() => ws.receive(snapshot()));
    fireEvent.click(screen.getByTestId("stop-run"));
    await vi.waitFor(() => expect(stopped).toEqual(["r1"]));
    act(() => ws.receive({ type: "status", status: "finished", reason: null, event: { kind: "status", t: 1, elapsed_s: 7, changes: { status: "finished" } } }));
    expect(screen.getByTestId("run-ended-banner")).toHaveTextContent("The run has finished.");
    expect(screen.getByTestId("stop-run")).toBeDisabled();
    expect(screen.getByTestId("apply-config")).toBeDisabled();
  });

  it("shows a failed run's reason and no empty charts", async () => {
    const ws = renderLive();
    const reason = "the workers were not ready within 300 s";
    act(() => ws.open());
    act(() => ws.receive({ ...snapshot([]), run: { ...run, status: "failed", failure_reason: reason } }));
    expect(screen.getByTestId("run-ended-banner")).toHaveTextContent("The run failed.");
    expect(screen.getAllByText(reason)).toHaveLength(1); // in the status line, once
    expect(screen.getByTestId("no-samples")).toHaveTextContent("This run recorded no samples.");
    expect(screen.queryAllByTestId(/^chart-/)).toEqual([]);
  });

  it("draws only the charts with data once a run has ended", async () => {
    const ws = renderLive();
    act(() => ws.open());
    act(() => ws.receive({ ...snapshot(), run: { ...run, status: "finished" } }));
    expect(screen.getByTestId("chart-throughput")).toHaveAttribute("data-points", "6");
    expect(screen.queryByTestId("chart-reader-latency")).toBeNull(); // readers are off: nothing to draw
  });
});
