import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_CONFIG, setPath } from "@/lib/knobs";
import { fetchStub, makeRun } from "@/test/fixtures";
import { NewRunPage } from "./NewRunPage";

const light = { name: "light", description: "1 tx/s, 5 mutations, 1 watcher", config: setPath(setPath(DEFAULT_CONFIG, "updater.transactions_per_second", 1), "preset", "light") };

function renderPage(created: unknown[]) {
  vi.stubGlobal(
    "fetch",
    vi.fn(
      fetchStub({
        "GET /presets": () => ({ body: [light] }),
        "POST /runs": (_url, init) => {
          created.push(JSON.parse(String(init?.body)));
          return { status: 201, body: makeRun("new1", { status: "starting" }) };
        },
      }),
    ),
  );
  render(
    <MemoryRouter initialEntries={["/runs/new"]}>
      <Routes>
        <Route path="/runs/new" element={<NewRunPage />} />
        <Route path="/runs/:id/live" element={<p>live page</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

describe("NewRunPage", () => {
  it("explains invalid input next to the field as it is typed, before any submit", async () => {
    const created: unknown[] = [];
    renderPage(created);
    await screen.findByTestId("preset-select");
    // Let the page apply the loaded presets first: that effect replaces the form's values, and a
    // change fired before it ran was overwritten (1 run in ~5).
    await act(async () => {});
    const rate = screen.getByTestId("field-updater.transactions_per_second");
    fireEvent.change(rate, { target: { value: "0" } });
    expect(screen.getByTestId("error-updater.transactions_per_second")).toHaveTextContent("Write rate must be more than 0 tx/s.");
    expect(rate).toHaveAttribute("aria-invalid", "true");

    fireEvent.change(screen.getByTestId("field-watcher.shard_filter"), { target: { value: "none" } });
    fireEvent.change(screen.getByTestId("field-watcher.watchers"), { target: { value: "3" } });
    expect(screen.getByTestId("error-watcher.shard_filter")).toHaveTextContent("needs exactly 1 watcher (got 3)");

    fireEvent.click(screen.getByTestId("start-run"));
    expect(screen.getByTestId("form-error")).toHaveTextContent("Fix the fields marked in red first.");
    expect(created).toEqual([]);
  });

  it("starts a run from a preset with only the changed fields as overrides", async () => {
    const created: unknown[] = [];
    renderPage(created);
    const select = await screen.findByTestId("preset-select");
    await waitFor(() => expect(screen.getByRole("option", { name: "light" })).toBeInTheDocument());
    fireEvent.change(select, { target: { value: "light" } });
    expect(screen.getByText("1 tx/s, 5 mutations, 1 watcher")).toBeInTheDocument();
    fireEvent.change(screen.getByTestId("field-duration_s"), { target: { value: "30" } });
    fireEvent.change(screen.getByTestId("field-watcher.poll_interval_ms"), { target: { value: "250" } });
    fireEvent.change(screen.getByTestId("field-name"), { target: { value: "  my run " } });
    fireEvent.click(screen.getByTestId("start-run"));
    await screen.findByText("live page");
    expect(created).toEqual([{ preset: "light", overrides: { duration_s: 30, watcher: { poll_interval_ms: 250 } }, name: "my run" }]);
  });

  it("offers the worker runtime in the Run section and sends go as an override", async () => {
    const created: unknown[] = [];
    renderPage(created);
    const runtime = await screen.findByTestId("field-runtime");
    expect([...(runtime as HTMLSelectElement).options].map((o) => o.value)).toEqual(["python", "go"]);
    expect(runtime).toHaveValue("python");
    fireEvent.change(runtime, { target: { value: "go" } });
    fireEvent.click(screen.getByTestId("start-run"));
    await screen.findByText("live page");
    expect(created).toEqual([{ config: { ...DEFAULT_CONFIG, runtime: "go" } }]);
  });

  it("shows the server's field errors next to the fields", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(
        fetchStub({
          "GET /presets": () => ({ body: [light] }),
          "POST /runs": () => ({
            status: 422,
            body: { detail: [{ loc: ["body", "config", "target", "database"], msg: "Value error, database spanload is locked", type: "value_error" }] },
          }),
        }),
      ),
    );
    render(
      <MemoryRouter>
        <NewRunPage />
      </MemoryRouter>,
    );
    await screen.findByTestId("preset-select");
    fireEvent.click(screen.getByTestId("start-run"));
    expect(await screen.findByTestId("error-target.database")).toHaveTextContent("database spanload is locked");
    expect(screen.getByTestId("form-error")).toHaveTextContent("config.target.database: Value error, database spanload is locked");
  });
});
