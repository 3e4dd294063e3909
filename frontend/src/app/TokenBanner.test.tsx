import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { getRun } from "@/lib/api/runs";
import { getToken, setToken } from "@/lib/token";
import { fetchStub, makeRun } from "@/test/fixtures";
import { TokenBanner } from "./TokenBanner";

const TOKEN = "s3cret-token";

/** The API as a server started with SPANLOAD_API_TOKEN=TOKEN answers it: 401 without the token. */
function tokenServer(authorizations: (string | null)[]) {
  const stub = fetchStub({ "GET /runs/a": () => ({ body: makeRun("a") }) });
  return vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const auth = (init?.headers as Record<string, string> | undefined)?.Authorization ?? null;
    authorizations.push(auth);
    if (auth !== `Bearer ${TOKEN}`) return new Response(JSON.stringify({ detail: "this server needs its API token" }), { status: 401 });
    return stub(input, init);
  });
}

describe("TokenBanner", () => {
  const reload = vi.fn();
  const realLocation = window.location;

  beforeEach(() => {
    setToken(null);
    reload.mockClear();
    Object.defineProperty(window, "location", { configurable: true, value: { ...realLocation, reload } });
  });
  afterEach(() => {
    Object.defineProperty(window, "location", { configurable: true, value: realLocation });
    vi.unstubAllGlobals();
    setToken(null);
  });

  it("asks for the token on a 401, stores it, reloads, and later requests carry it", async () => {
    const authorizations: (string | null)[] = [];
    vi.stubGlobal("fetch", tokenServer(authorizations));
    render(<TokenBanner />);
    expect(screen.queryByTestId("token-banner")).toBeNull();

    await act(async () => {
      await expect(getRun("a")).rejects.toThrow("this server needs its API token");
    });
    const banner = screen.getByTestId("token-banner");
    expect(banner).toHaveTextContent("This server needs its API token (SPANLOAD_API_TOKEN).");
    fireEvent.change(screen.getByLabelText("API token"), { target: { value: `  ${TOKEN} ` } });
    fireEvent.submit(banner);
    expect(getToken()).toBe(TOKEN);
    expect(reload).toHaveBeenCalledTimes(1);

    await expect(getRun("a")).resolves.toMatchObject({ id: "a" });
    expect(authorizations).toEqual([null, `Bearer ${TOKEN}`]);
  });

  it("says the stored token was refused when the server rejects it", async () => {
    setToken("stale");
    const authorizations: (string | null)[] = [];
    vi.stubGlobal("fetch", tokenServer(authorizations));
    render(<TokenBanner />);
    await act(async () => {
      await expect(getRun("a")).rejects.toThrow();
    });
    expect(screen.getByTestId("token-banner")).toHaveTextContent("The server refused the API token.");
    expect(authorizations).toEqual(["Bearer stale"]);
    fireEvent.change(screen.getByLabelText("API token"), { target: { value: "   " } });
    fireEvent.submit(screen.getByTestId("token-banner"));
    expect(getToken()).toBeNull(); // an empty entry forgets the stale token
  });
});
