import { describe, expect, it, vi } from "vitest";
import { fetchStub, makeRun } from "@/test/fixtures";
import { ApiError, buildQuery, detailMessage } from "./client";
import { fetchComparison } from "./compare";
import { fetchHealth } from "./health";
import { liveUrl } from "./live";
import { normalizePresets } from "./presets";
import { createRun, deleteRun, exportUrl, listRuns, patchConfig } from "./runs";
import { fetchSamples } from "./samples";

describe("buildQuery", () => {
  it("drops empty values and joins lists", () => {
    expect(buildQuery({ status: "running", name: "", preset: undefined, limit: 50, ids: ["a", "b"] })).toBe("?status=running&limit=50&ids=a%2Cb");
    expect(buildQuery({})).toBe("");
  });
});

describe("request", () => {
  it("lists runs with the filters in the query string", async () => {
    const seen: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(
        fetchStub({
          "GET /runs": (url) => {
            seen.push(url.search);
            return { body: { data: [makeRun("a")], count: 1 } };
          },
        }),
      ),
    );
    const page = await listRuns({ status: "finished", preset: "light", limit: 10, offset: 20 });
    expect(page.count).toBe(1);
    expect(page.data[0]?.id).toBe("a");
    expect(seen).toEqual(["?status=finished&preset=light&limit=10&offset=20"]);
  });

  it("sends JSON bodies with the method", async () => {
    const stub = vi.fn(fetchStub({ "PATCH /runs/r1/config": (_url, init) => ({ body: JSON.parse(String(init?.body)) }) }));
    vi.stubGlobal("fetch", stub);
    const echoed = await patchConfig("r1", { updater: { transactions_per_second: 20 } });
    expect(echoed).toEqual({ updater: { transactions_per_second: 20 } });
    const init = stub.mock.calls[0]?.[1];
    expect(init?.method).toBe("PATCH");
    expect((init?.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
  });

  it("turns {detail} into an ApiError with the status and the message", async () => {
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "PATCH /runs/r1/config": () => ({ status: 409, body: { detail: "run r1 is not running" } }) })));
    const err = await patchConfig("r1", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
    expect((err as ApiError).message).toBe("run r1 is not running");
  });

  it("explains FastAPI validation errors field by field", async () => {
    const detail = [{ loc: ["body", "config", "updater", "transactions_per_second"], msg: "Input should be greater than 0", type: "greater_than" }];
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "POST /runs": () => ({ status: 422, body: { detail } }) })));
    const err = (await createRun({ preset: "light" }).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(422);
    expect(err.message).toBe("config.updater.transactions_per_second: Input should be greater than 0");
    expect(err.detail).toEqual(detail);
  });

  it("reports an unreachable server as a network ApiError", async () => {
    vi.stubGlobal("fetch", vi.fn(() => Promise.reject(new TypeError("Failed to fetch"))));
    const err = (await fetchHealth().catch((e: unknown) => e)) as ApiError;
    expect(err.isNetwork).toBe(true);
    expect(err.message).toMatch(/Cannot reach/);
  });

  it("answers undefined for 204 No Content", async () => {
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "DELETE /runs/x": () => ({ status: 204 }) })));
    await expect(deleteRun("x")).resolves.toBeUndefined();
  });

  it("unwraps {data} from the samples endpoint and passes the window", async () => {
    const seen: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(
        fetchStub({
          "GET /runs/r1/samples": (url) => {
            seen.push(url.search);
            return { body: { data: [{ seq: 0 }], count: 1 } };
          },
        }),
      ),
    );
    const samples = await fetchSamples("r1", { from: 10, to: 20, max_points: 600 });
    expect(samples).toHaveLength(1);
    expect(seen[0]).toBe("?from=10&to=20&max_points=600");
  });
});

describe("the typed client", () => {
  it("sends compare's ids comma-separated and a path id encoded, as the API reads them", async () => {
    const seen: string[] = [];
    const stub = fetchStub({
      "GET /compare": (url) => {
        seen.push(url.search);
        return { body: { runs: [] } };
      },
      "GET /runs/a%2Fb": (url) => {
        seen.push(url.pathname);
        return { body: makeRun("a/b") };
      },
    });
    vi.stubGlobal("fetch", vi.fn(stub));
    await fetchComparison(["a", "b"]);
    await import("./runs").then((m) => m.getRun("a/b"));
    expect(seen).toEqual(["?ids=a%2Cb", "/api/runs/a%2Fb"]);
  });

  it("leaves blank filters out of the query", async () => {
    const seen: string[] = [];
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "GET /runs": (url) => (seen.push(url.search), { body: { data: [], count: 0 } }) })));
    await listRuns({ status: undefined, name: undefined, limit: 5 });
    expect(seen).toEqual(["?limit=5"]);
  });
});

describe("helpers", () => {
  it("builds ws and wss URLs for the live stream", () => {
    expect(liveUrl("r 1", { protocol: "http:", host: "127.0.0.1:8000" })).toBe("ws://127.0.0.1:8000/api/runs/r%201/live?max_points=600");
    expect(liveUrl("r1", { protocol: "https:", host: "x.example" }, 2)).toBe("wss://x.example/api/runs/r1/live?max_points=2");
  });

  it("accepts presets as a list or a map", () => {
    const config = makeRun("a").config;
    expect(normalizePresets([{ name: "light", config }]).map((p) => p.name)).toEqual(["light"]);
    expect(normalizePresets({ light: { description: "1/5", config }, heavy: config }).map((p) => p.name)).toEqual(["light", "heavy"]);
    expect(normalizePresets("nonsense")).toEqual([]);
  });

  it("falls back to a sentence when detail is empty", () => {
    expect(detailMessage(null, "GET /x failed with HTTP 500")).toBe("GET /x failed with HTTP 500");
  });
});

describe("API token", () => {
  it("sends the stored token as a bearer header, and in the query where headers cannot go", async () => {
    window.localStorage.setItem("spanload.apiToken", "s3cret");
    try {
      const stub = vi.fn(fetchStub({ "GET /health": () => ({ body: { status: "ok" } }) }));
      vi.stubGlobal("fetch", stub);
      await fetchHealth();
      expect((stub.mock.calls[0]?.[1]?.headers as Record<string, string>).Authorization).toBe("Bearer s3cret");
      expect(liveUrl("r1", { protocol: "http:", host: "h" })).toBe("ws://h/api/runs/r1/live?max_points=600&token=s3cret");
      expect(exportUrl("r1", "csv")).toBe("/api/runs/r1/export?format=csv&token=s3cret");
    } finally {
      window.localStorage.removeItem("spanload.apiToken");
    }
  });

  it("announces a 401 so that the shell asks for the token", async () => {
    const heard = vi.fn();
    window.addEventListener("spanload:unauthorized", heard);
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "GET /runs": () => ({ status: 401, body: { detail: "missing or wrong API token" } }) })));
    await expect(listRuns()).rejects.toThrow("missing or wrong API token");
    window.removeEventListener("spanload:unauthorized", heard);
    expect(heard).toHaveBeenCalledTimes(1);
  });

  it("adopts ?token= from the address and removes it", async () => {
    const { adoptTokenFromUrl, getToken, setToken } = await import("@/lib/token");
    window.history.replaceState(null, "", "/runs?x=1&token=abc");
    adoptTokenFromUrl();
    expect(getToken()).toBe("abc");
    expect(window.location.pathname + window.location.search).toBe("/runs?x=1");
    setToken(null);
    expect(getToken()).toBeNull();
  });
});
