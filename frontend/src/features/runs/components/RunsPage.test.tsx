import { fireEvent, render, screen, within } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { describe, expect, it, vi } from "vitest";
import { fetchStub, makeRun } from "@/test/fixtures";
import { RunsPage } from "./RunsPage";

function Where() {
  const location = useLocation();
  return <p data-testid="where">{location.pathname + location.search}</p>;
}

const runs = [
  makeRun("a", { name: "alpha", headline: { achieved_tps: 5, updater_p99_ms: 30, notify_p50_ms: 40, reads_p99_ms: null } }),
  makeRun("b", { name: "bravo", status: "running", summary: null, headline: { achieved_tps: 50, updater_p99_ms: 10, notify_p50_ms: 41, reads_p99_ms: null } }),
  makeRun("c", { name: "charlie", headline: { achieved_tps: 20, updater_p99_ms: null, notify_p50_ms: null, reads_p99_ms: null } }),
];

function renderPage(search = "") {
  const seen: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(
      fetchStub({
        "GET /runs": (url) => {
          seen.push(url.search);
          return { body: { data: runs, count: runs.length } };
        },
        "GET /presets": () => ({ body: [] }),
      }),
    ),
  );
  render(
    <MemoryRouter initialEntries={[`/${search}`]}>
      <Routes>
        <Route path="/" element={<RunsPage />} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
  return seen;
}

const names = () => screen.getAllByTestId("run-link").map((a) => a.textContent);

describe("RunsPage", () => {
  it("sorts by a column, nulls last, and toggles the direction", async () => {
    renderPage();
    await screen.findByTestId("runs-table");
    fireEvent.click(screen.getByTestId("sort-tps"));
    expect(names()).toEqual(["bravo", "charlie", "alpha"]);
    fireEvent.click(screen.getByTestId("sort-tps"));
    expect(names()).toEqual(["alpha", "charlie", "bravo"]);
    fireEvent.click(screen.getByTestId("sort-updaterP99"));
    expect(names()).toEqual(["alpha", "bravo", "charlie"]);
  });

  it("shows a live badge for running runs and links them to the live page", async () => {
    renderPage();
    await screen.findByTestId("runs-table");
    const row = screen.getAllByTestId("run-row").find((r) => r.getAttribute("data-run-id") === "b");
    expect(row).toBeDefined();
    expect(within(row as HTMLElement).getByTestId("status-badge")).toHaveTextContent("live");
    expect(within(row as HTMLElement).getByTestId("run-link")).toHaveAttribute("href", "/runs/b/live");
  });

  it("compares the selected runs, 2 at least", async () => {
    renderPage();
    await screen.findByTestId("runs-table");
    const compare = screen.getByTestId("compare-selected");
    const boxes = screen.getAllByTestId("run-select");
    fireEvent.click(boxes[2] as HTMLElement);
    expect(compare).toBeDisabled();
    fireEvent.click(boxes[0] as HTMLElement);
    expect(compare).toBeEnabled();
    fireEvent.click(compare);
    expect(screen.getByTestId("where")).toHaveTextContent("/compare?ids=c,a");
  });

  it("passes the filters from the URL to the API", async () => {
    const seen = renderPage("?status=finished&name=alp");
    await screen.findByTestId("runs-table");
    expect(seen[0]).toBe("?status=finished&name=alp&limit=50&offset=0");
  });
});
