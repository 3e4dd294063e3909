import { render, screen } from "@testing-library/react";
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
});
