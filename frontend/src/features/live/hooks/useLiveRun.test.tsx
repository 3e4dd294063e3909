import { act, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { configEvent, makeRun, makeSample } from "@/test/fixtures";
import { FakeWebSocket } from "@/test/fakeWebSocket";
import { WS_CLOSE } from "@/lib/api/live";
import { MAX_BACKOFF_MS } from "@/lib/backoff";
import { DEFAULT_CONFIG } from "@/lib/knobs";
import { UNAUTHORIZED_EVENT } from "@/lib/token";
import { LIVE_WINDOW } from "./liveState";
import { useLiveRun } from "./useLiveRun";

const url = (id: string) => `ws://test/api/runs/${id}/live`;

function snapshot(samples = [makeSample(0), makeSample(1)], events = [configEvent(1, { "updater.transactions_per_second": 5 })]) {
  const run = makeRun("r1", { status: "running", summary: null, current_config: DEFAULT_CONFIG });
  return { type: "snapshot", run, events, samples, total_samples: samples.length, downsampled: false };
}

const ORIGIN_REFUSED =
  "Origin 'http://127.0.0.1:5173' may not change anything or open live streams here: only the server's own pages may. " +
  "Add the origin to SPANLOAD_ALLOWED_ORIGINS to allow a UI served elsewhere.";

/** fetch as the server answers POST /api/health/origin: 204, or the Origin check's 403, or a 401. */
function originProbe(status: number) {
  return vi.fn(async () =>
    status === 204 ? new Response(null, { status }) : Response.json({ detail: status === 403 ? ORIGIN_REFUSED : "missing or wrong API token" }, { status }),
  );
}

/** Let the probe's promise chain (fetch, then the body) settle under fake timers. */
const settle = () =>
  act(async () => {
    for (let i = 0; i < 20; i += 1) await Promise.resolve();
  });

describe("useLiveRun", () => {
  beforeEach(() => {
    FakeWebSocket.reset();
    vi.stubGlobal("WebSocket", FakeWebSocket);
    vi.stubGlobal("fetch", originProbe(204));
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("builds state from the snapshot, then appends live samples and events", () => {
    const { result } = renderHook(() => useLiveRun("r1", url));
    const ws = FakeWebSocket.last();
    expect(ws.url).toBe("ws://test/api/runs/r1/live");
    expect(result.current.connection).toBe("connecting");
    act(() => ws.open());
    expect(result.current.connection).toBe("open");
    act(() => ws.receive(snapshot()));
    expect(result.current.status).toBe("running");
    expect(result.current.samples.map((s) => s.seq)).toEqual([0, 1]);
    expect(result.current.events).toHaveLength(1);

    act(() => ws.receive({ type: "sample", sample: makeSample(2) }));
    act(() => ws.receive({ type: "sample", sample: makeSample(2) })); // a duplicate is ignored
    expect(result.current.samples.map((s) => s.seq)).toEqual([0, 1, 2]);

    const change = configEvent(2.5, { "updater.transactions_per_second": 20 });
    const next = { ...DEFAULT_CONFIG, updater: { ...DEFAULT_CONFIG.updater, transactions_per_second: 20 } };
    act(() => ws.receive({ type: "config_change", event: change, config: next }));
    expect(result.current.events).toHaveLength(2);
    expect(result.current.config?.updater.transactions_per_second).toBe(20);

    act(() => ws.receive({ type: "status", status: "paused", reason: null, event: { kind: "status", t: 1, elapsed_s: 3, changes: { status: "paused" } } }));
    expect(result.current.status).toBe("paused");
  });

  it("reconnects with backoff after a lost connection and rebuilds from the new snapshot", () => {
    vi.spyOn(Math, "random").mockReturnValue(0.5); // no jitter: 500 ms, then 1000 ms
    const { result } = renderHook(() => useLiveRun("r1", url));
    const first = FakeWebSocket.last();
    act(() => first.open());
    act(() => first.receive(snapshot()));
    act(() => first.receive({ type: "sample", sample: makeSample(2) }));

    act(() => first.drop(1006));
    expect(result.current.connection).toBe("reconnecting");
    expect(result.current.attempt).toBe(1);
    expect(FakeWebSocket.instances).toHaveLength(1);
    act(() => vi.advanceTimersByTime(499));
    expect(FakeWebSocket.instances).toHaveLength(1);
    act(() => vi.advanceTimersByTime(1));
    expect(FakeWebSocket.instances).toHaveLength(2);

    // The backend is still down: the second try fails and waits twice as long.
    const second = FakeWebSocket.last();
    act(() => second.drop(1006));
    expect(result.current.attempt).toBe(2);
    act(() => vi.advanceTimersByTime(999));
    expect(FakeWebSocket.instances).toHaveLength(2);
    act(() => vi.advanceTimersByTime(1));
    expect(FakeWebSocket.instances).toHaveLength(3);

    // The backend is back: the snapshot replaces what was held (samples 0..4, one more event).
    const third = FakeWebSocket.last();
    act(() => third.open());
    expect(result.current.connection).toBe("open");
    expect(result.current.attempt).toBe(0);
    const events = [configEvent(1, { "updater.transactions_per_second": 5 }, 1), configEvent(4, { "watcher.limit": 100 }, 2)];
    act(() => third.receive(snapshot([0, 1, 2, 3, 4].map((i) => makeSample(i)), events)));
    expect(result.current.samples.map((s) => s.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(result.current.events.map((e) => e.id)).toEqual([1, 2]);
    expect(result.current.snapshots).toBe(2);
  });

  it("stops reconnecting once the run has ended and the server closed normally", () => {
    const { result } = renderHook(() => useLiveRun("r1", url));
    const ws = FakeWebSocket.last();
    act(() => ws.open());
    act(() => ws.receive(snapshot()));
    act(() => ws.receive({ type: "status", status: "finished", reason: null, event: { kind: "status", t: 1, elapsed_s: 3, changes: { status: "finished" } } }));
    act(() => ws.drop(1000));
    expect(result.current.connection).toBe("closed");
    act(() => vi.advanceTimersByTime(60_000));
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it("reconnects at once on retryNow and closes its socket on unmount", () => {
    const { result, unmount } = renderHook(() => useLiveRun("r1", url));
    act(() => FakeWebSocket.last().drop(1006));
    expect(result.current.connection).toBe("reconnecting");
    act(() => result.current.retryNow());
    expect(FakeWebSocket.instances).toHaveLength(2);
    const current = FakeWebSocket.last();
    unmount();
    expect(current.closedByClient).toBe(1000);
    act(() => vi.advanceTimersByTime(60_000));
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it("reconnects after the server drops a slow viewer, and keeps a bounded window", () => {
    const { result } = renderHook(() => useLiveRun("r1", url));
    const ws = FakeWebSocket.last();
    act(() => ws.open());
    const many = Array.from({ length: LIVE_WINDOW + 50 }, (_, i) => makeSample(i));
    act(() => ws.receive(snapshot(many, [])));
    expect(result.current.samples).toHaveLength(LIVE_WINDOW);
    expect(result.current.samples[0]?.seq).toBe(50);
    act(() => ws.receive({ type: "dropped", reason: "fell 64 messages behind", backlog: 64 }));
    expect(result.current.dropped).toBe(1);
    act(() => ws.drop(WS_CLOSE.TRY_AGAIN_LATER));
    expect(result.current.connection).toBe("reconnecting");
    expect(result.current.attempt).toBe(1);
    act(() => vi.advanceTimersByTime(MAX_BACKOFF_MS * 1.2));
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it("stops and asks for the token when the server refuses it (1008), instead of reconnecting", () => {
    const heard = vi.fn();
    window.addEventListener(UNAUTHORIZED_EVENT, heard);
    const { result } = renderHook(() => useLiveRun("r1", url));
    act(() => FakeWebSocket.last().drop(WS_CLOSE.POLICY_VIOLATION));
    window.removeEventListener(UNAUTHORIZED_EVENT, heard);
    expect(result.current.connection).toBe("refused");
    expect(heard).toHaveBeenCalledTimes(1);
    act(() => vi.advanceTimersByTime(60_000));
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it("shows the server's sentence and stops when a socket refused before opening was refused for its origin", async () => {
    const probe = originProbe(403);
    vi.stubGlobal("fetch", probe);
    const { result } = renderHook(() => useLiveRun("r1", url));
    act(() => FakeWebSocket.last().drop(1006)); // what a browser reports for a refused handshake
    expect(result.current.connection).toBe("reconnecting");
    await settle();
    expect(probe).toHaveBeenCalledWith("/api/health/origin", expect.objectContaining({ method: "POST" }));
    expect(result.current.connection).toBe("forbidden");
    expect(result.current.refusal).toBe(ORIGIN_REFUSED);
    act(() => vi.advanceTimersByTime(60_000));
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it("treats a 1008 'Origin not allowed' close as the origin refusal, not as a token to ask for", async () => {
    vi.stubGlobal("fetch", originProbe(403));
    const heard = vi.fn();
    window.addEventListener(UNAUTHORIZED_EVENT, heard);
    const { result } = renderHook(() => useLiveRun("r1", url));
    act(() => FakeWebSocket.last().drop(WS_CLOSE.POLICY_VIOLATION, "Origin not allowed"));
    await settle();
    window.removeEventListener(UNAUTHORIZED_EVENT, heard);
    expect(result.current.connection).toBe("forbidden");
    expect(heard).not.toHaveBeenCalled();
  });

  it("asks for the token when the probe says the token was refused", async () => {
    vi.stubGlobal("fetch", originProbe(401));
    const heard = vi.fn();
    window.addEventListener(UNAUTHORIZED_EVENT, heard);
    const { result } = renderHook(() => useLiveRun("r1", url));
    act(() => FakeWebSocket.last().drop(1006));
    await settle();
    window.removeEventListener(UNAUTHORIZED_EVENT, heard);
    expect(result.current.connection).toBe("refused");
    expect(heard).toHaveBeenCalledTimes(1);
  });

  it("keeps reconnecting when the probe finds nothing refused (the server was only away)", async () => {
    const probe = originProbe(204);
    vi.stubGlobal("fetch", probe);
    const { result } = renderHook(() => useLiveRun("r1", url));
    act(() => FakeWebSocket.last().drop(1006));
    await settle();
    expect(probe).toHaveBeenCalledTimes(1);
    expect(result.current.connection).toBe("reconnecting");
    expect(result.current.refusal).toBeNull();
    act(() => vi.advanceTimersByTime(MAX_BACKOFF_MS * 1.2));
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it("does not probe when an open socket is lost", async () => {
    const probe = originProbe(403);
    vi.stubGlobal("fetch", probe);
    const { result } = renderHook(() => useLiveRun("r1", url));
    act(() => FakeWebSocket.last().open());
    act(() => FakeWebSocket.last().drop(1006));
    await settle();
    expect(probe).not.toHaveBeenCalled();
    expect(result.current.connection).toBe("reconnecting");
  });

  it("ignores frames that are not typed messages", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const { result } = renderHook(() => useLiveRun("r1", url));
    const ws = FakeWebSocket.last();
    act(() => ws.open());
    act(() => ws.receive("not json"));
    act(() => ws.receive({ no: "type" }));
    expect(result.current.samples).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(2);
  });
});
