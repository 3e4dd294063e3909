import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeWebSocket } from "@/test/fakeWebSocket";
import { fetchStub, makeRun, makeSample } from "@/test/fixtures";
import { RunDetailPage } from "./RunDetailPage";

function Where() {
  const location = useLocation();
  return <p data-testid="where">{location.pathname}</p>;
}

interface Call {
  method: string;
  path: string;
  body: unknown;
}

function renderPage(handlers: Parameters<typeof fetchStub>[0] = {}) {
  const calls: Call[] = [];
  const stub = fetchStub({
    "GET /runs/a": () => ({ body: makeRun("a", { name: "alpha", notes: "old notes", tags: ["x"] }) }),
    "GET /runs/a/samples": () => ({ body: { data: [], count: 0, total: 0, downsampled: false } }),
    ...handlers,
  });
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input), "http://localhost");
      calls.push({ method: init?.method ?? "GET", path: url.pathname, body: init?.body ? JSON.parse(String(init.body)) : undefined });
      return stub(input, init);
    }),
  );
  render(
    <MemoryRouter initialEntries={["/runs/a"]}>
      <Routes>
        <Route path="/runs/:id" element={<RunDetailPage />} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
  return calls;
}

const writes = (calls: Call[]) => calls.filter((c) => c.method !== "GET");

describe("RunDetailPage", () => {
  beforeEach(() => {
    FakeWebSocket.reset();
    vi.stubGlobal("WebSocket", FakeWebSocket); // the events' snapshot: never answered here
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("deletes the run after the confirmation and goes back to the runs list", async () => {
    const calls = renderPage({ "DELETE /runs/a": () => ({ status: 204 }) });
    const confirm = vi.spyOn(window, "confirm").mockReturnValue(true);
    fireEvent.click(await screen.findByRole("button", { name: "Delete" }));
    await waitFor(() => expect(screen.getByTestId("where")).toHaveTextContent(/^\/$/));
    expect(confirm).toHaveBeenCalledWith('Delete run "alpha" and all its samples?');
    expect(writes(calls)).toEqual([{ method: "DELETE", path: "/api/runs/a", body: undefined }]);
  });

  it("deletes nothing when the confirmation is declined", async () => {
    const calls = renderPage({ "DELETE /runs/a": () => ({ status: 204 }) });
    vi.spyOn(window, "confirm").mockReturnValue(false);
    fireEvent.click(await screen.findByRole("button", { name: "Delete" }));
    expect(writes(calls)).toEqual([]);
    expect(screen.getByTestId("run-detail-page")).toBeInTheDocument();
  });

  it("shows why the server refused a delete and stays on the run", async () => {
    renderPage({ "DELETE /runs/a": () => ({ status: 409, body: { detail: "run 'a' is running: stop it first" } }) });
    vi.spyOn(window, "confirm").mockReturnValue(true);
    fireEvent.click(await screen.findByRole("button", { name: "Delete" }));
    expect(await screen.findByText("run 'a' is running: stop it first")).toBeInTheDocument();
    expect(screen.getByTestId("run-detail-page")).toBeInTheDocument();
  });

  it("renames the run and saves its notes and tags in one PATCH, then shows the new name", async () => {
    const calls = renderPage({
      "PATCH /runs/a": (_url, init) => {
        const body = JSON.parse(String(init?.body)) as { name: string; notes: string; tags: string[] };
        return { body: makeRun("a", { ...body }) };
      },
    });
    fireEvent.change(await screen.findByTestId("run-name-input"), { target: { value: "  beta  " } });
    fireEvent.change(screen.getByTestId("run-notes-input"), { target: { value: "new notes" } });
    fireEvent.change(screen.getByTestId("run-tags-input"), { target: { value: "slow, prod,, slow " } });
    fireEvent.submit(screen.getByTestId("notes-form"));
    expect(await screen.findByText("Saved.")).toBeInTheDocument();
    expect(writes(calls)).toEqual([
      { method: "PATCH", path: "/api/runs/a", body: { name: "beta", notes: "new notes", tags: ["slow", "prod"] } },
    ]);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent(/^beta/);
  });

  it("an emptied name clears it (null) and a refused save shows the server's reason", async () => {
    const calls = renderPage({ "PATCH /runs/a": () => ({ status: 422, body: { detail: "name: must not contain NUL characters" } }) });
    fireEvent.change(await screen.findByTestId("run-name-input"), { target: { value: "   " } });
    fireEvent.submit(screen.getByTestId("notes-form"));
    expect(await screen.findByText("name: must not contain NUL characters")).toBeInTheDocument();
    expect(writes(calls)).toEqual([{ method: "PATCH", path: "/api/runs/a", body: { name: null, notes: "old notes", tags: ["x"] } }]);
    expect(screen.queryByText("Saved.")).toBeNull();
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent(/^alpha/);
  });

  it("draws the participants chart of a run whose target reported participants", async () => {
    const server = (participants: number) => ({ "server.commit_participants": participants, "server.splits": 2, "server.cpu_fraction": 0.1 });
    const samples = [makeSample(0, { gauges: server(1) }), makeSample(1, { gauges: server(2) })];
    renderPage({ "GET /runs/a/samples": () => ({ body: { data: samples, count: 2, total: 2, downsampled: false } }) });
    const chart = await screen.findByTestId("chart-participants");
    expect(chart).toHaveTextContent("at the end: 2 participants over 2 splits");
  });

  it("draws no participants chart without participants", async () => {
    renderPage({ "GET /runs/a/samples": () => ({ body: { data: [makeSample(0)], count: 1, total: 1, downsampled: false } }) });
    await screen.findByTestId("chart-updater-latency");
    expect(screen.queryByTestId("chart-participants")).toBeNull();
  });

  it("says in the server's sentence that a run does not exist, with the way back", async () => {
    const sentence = "There is no run 'a' on this server: it was never started here, or it was deleted.";
    renderPage({ "GET /runs/a": () => ({ status: 404, body: { detail: sentence } }) });
    const state = await screen.findByTestId("no-such-run");
    expect(state).toHaveTextContent(sentence);
    expect(screen.getByRole("link", { name: "Back to the runs" })).toHaveAttribute("href", "/");
    expect(screen.queryByText("Retry")).toBeNull();
  });

  it("says a failed run failed, with its reason, where the summary would be too", async () => {
    const reason = "worker 0 (pid 12) exited with status 1";
    renderPage({ "GET /runs/a": () => ({ body: makeRun("a", { status: "failed", failure_reason: reason, summary: null }) }) });
    expect(await screen.findByTestId("run-failed")).toHaveTextContent(`This run failed. ${reason}`);
    expect(screen.getByTestId("no-summary")).toHaveTextContent("No summary: the run failed before it could write one");
    expect(screen.queryByText(/No summary yet/)).toBeNull();
  });

  it("says which fields of an older stored config this version could not read", async () => {
    const problem = "this version of Spanload cannot read part of the stored config: retired_knob: Extra inputs are not permitted";
    renderPage({ "GET /runs/a": () => ({ body: makeRun("a", { config_problem: problem }) }) });
    expect(await screen.findByTestId("config-problem")).toHaveTextContent(problem);
  });

  it("puts the participants chart after the change watcher's own charts", async () => {
    const gauges = { "server.commit_participants": 1, "server.splits": 1, "updater.tps": 5 };
    const samples = [makeSample(0, { gauges }), makeSample(1, { gauges })];
    renderPage({ "GET /runs/a/samples": () => ({ body: { data: samples, count: 2, total: 2, downsampled: false } }) });
    await screen.findByTestId("chart-participants");
    const order = [...document.querySelectorAll('[data-testid^="chart-"]')].map((c) => c.getAttribute("data-testid"));
    expect(order.indexOf("chart-throughput")).toBeLessThan(order.indexOf("chart-participants"));
    expect(order.indexOf("chart-notify")).toBeLessThan(order.indexOf("chart-participants"));
  });
});
