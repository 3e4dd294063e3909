import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, useLocation } from "react-router-dom";
import { describe, expect, it, vi } from "vitest";
import { AppRoutes } from "@/app/routes";
import { fetchStub, makeRun } from "@/test/fixtures";

function Where() {
  const location = useLocation();
  return <p data-testid="where">{location.pathname + location.search}</p>;
}

const HINT = {
  name: "hint",
  description: "the poll with and without the hint",
  variants: [
    { preset: "medium", description: "hinted" },
    { preset: "medium-no-hint", description: "no hint" },
  ],
  figures: [{ metric: "watcher.poll_server.p50_ms", label: "poll at the server p50 ms" }],
  report: "the report: 49x without the hint",
  overrides: { duration_s: 60, preload: { rows: 100000 }, target: { kind: "local", database: "spanload-exp-hint" } },
  duration_s: 60,
  preload_rows: 100000,
};

describe("ExperimentsPage", () => {
  it("runs the variants with the length and table size typed in, then opens their comparison", async () => {
    const posted: unknown[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(
        fetchStub({
          "GET /experiments": () => ({ body: [HINT] }),
          "GET /health": () => ({ body: { status: "ok" } }),
          "POST /runs": (_url, init) => {
            const body = JSON.parse(String(init?.body)) as { preset: string };
            posted.push(body);
            return { status: 201, body: makeRun(`r${posted.length}`, { preset: body.preset, status: "finished" }) };
          },
        }),
      ),
    );
    render(
      <MemoryRouter initialEntries={["/experiments"]}>
        <AppRoutes />
        <Where />
      </MemoryRouter>,
    );
    expect(await screen.findByTestId("exp-hint-report")).toHaveTextContent("49x without the hint");
    fireEvent.change(screen.getByTestId("exp-hint-duration"), { target: { value: "20" } });
    fireEvent.change(screen.getByTestId("exp-hint-rows"), { target: { value: "30000" } });
    fireEvent.click(screen.getByTestId("exp-hint-run"));
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/compare?ids=r1,r2"));
    expect(posted).toEqual(
      ["medium", "medium-no-hint"].map((preset) =>
        expect.objectContaining({ preset, overrides: { duration_s: 20, preload: { rows: 30000 }, target: { kind: "local", database: "spanload-exp-hint" } } }),
      ),
    );
  });
});
