import { render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchStub } from "@/test/fixtures";
import { ConnectionBanner, LocalSpannerState } from "./ConnectionBanner";
import { useHealth } from "./useHealth";

function HealthShown() {
  const health = useHealth();
  return (
    <>
      <LocalSpannerState health={health.health} />
      <ConnectionBanner {...health} />
    </>
  );
}

const local = (state: string, restarts: number, last_exit: string | null) => ({
  status: "ok",
  version: "0.1.0",
  local_spanner: { address: "127.0.0.1:9010", state, version: "0.1.0", pid: state === "up" ? 42 : null, restarts, last_exit },
});

describe("the health indicator", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the local Spanner restarting, then up again with its restart count", async () => {
    const answers = [local("restarting", 0, "was killed by SIGKILL"), local("up", 1, "was killed by SIGKILL")];
    let calls = 0;
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "GET /health": () => ({ body: answers[Math.min(calls++, 1)] }) })));
    render(<HealthShown />);
    expect(await screen.findByTestId("local-spanner-state")).toHaveTextContent("local Spanner: restarting");
    expect(screen.getByTestId("local-spanner-banner")).toHaveTextContent(
      "The local Spanner was killed by SIGKILL; serve is restarting it on 127.0.0.1:9010.",
    );
    // while it restarts the page looks again every second
    expect(await screen.findByText("local Spanner: up · restarted 1×", {}, { timeout: 3000 })).toBeInTheDocument();
    expect(screen.queryByTestId("local-spanner-banner")).toBeNull();
    expect(calls).toBe(2);
  });

  it("shows a local Spanner that is down in the header, without the restarting banner", async () => {
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "GET /health": () => ({ body: local("down", 2, "exited with code 1") }) })));
    const { container } = render(<HealthShown />);
    const state = await screen.findByTestId("local-spanner-state");
    expect(state).toHaveClass("local-spanner-down");
    expect(state).toHaveAttribute("title", "last exit: exited with code 1");
    expect(container.textContent).toBe("local Spanner: down · restarted 2×");
  });
});
