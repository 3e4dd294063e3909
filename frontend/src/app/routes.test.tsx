import { fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter, useLocation } from "react-router-dom";
import { describe, expect, it, vi } from "vitest";
import { fetchStub, makeRun } from "@/test/fixtures";
import { AppRoutes } from "./routes";

function Where() {
  const location = useLocation();
  return <p data-testid="where">{location.pathname + location.search}</p>;
}

describe("AppRoutes", () => {
  it("sends /runs to the runs list at /, keeping its filters", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(fetchStub({ "GET /runs": () => ({ body: { data: [makeRun("a", { name: "alpha" })], count: 1 } }), "GET /presets": () => ({ body: [] }), "GET /health": () => ({ body: { status: "ok" } }) })),
    );
    render(
      <MemoryRouter initialEntries={["/runs?status=finished"]}>
        <AppRoutes />
        <Where />
      </MemoryRouter>,
    );
    expect(await screen.findByTestId("runs-page")).toBeInTheDocument();
    expect(screen.getByTestId("where").textContent).toBe("/?status=finished");
  });

  it("opens a new page at its top, and leaves back and forward to the browser", async () => {
    vi.stubGlobal("fetch", vi.fn(fetchStub({ "GET /runs": () => ({ body: { data: [], count: 0 } }), "GET /presets": () => ({ body: [] }), "GET /health": () => ({ body: { status: "ok" } }) })));
    const scrollTo = vi.fn();
    vi.stubGlobal("scrollTo", scrollTo);
    render(
      <MemoryRouter initialEntries={["/"]}>
        <AppRoutes />
      </MemoryRouter>,
    );
    await screen.findByTestId("runs-page");
    expect(scrollTo).not.toHaveBeenCalled(); // the first page: the browser's own (a reload keeps its place)
    fireEvent.click(screen.getByTestId("nav-new-run"));
    expect(scrollTo).toHaveBeenCalledWith(0, 0);
  });
});
