import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_CONFIG, setPath } from "@/lib/knobs";
import { fetchStub, makeRun } from "@/test/fixtures";
import { NewRunPage } from "./NewRunPage";

const light = { name: "light", description: "1 tx/s, 5 mutations, 1 watcher", config: setPath(setPath(DEFAULT_CONFIG, "updater.transactions_per_second", 1), "preset", "light") };
// a preset of a built-in definition, as the report workloads' presets are since issue 22
const definition = {
  name: "tiny",
  knobs: { transactions_per_second: { default: 1, min: 0.001, max: 100000, unit: "tx/s", help: "write transactions per second" }, preload_rows: { default: 0, min: 0, max: 1000000, live: false, help: "rows loaded first" } },
  operations: { write: { rate: "$transactions_per_second", transaction: "single_use", steps: [] } },
};
const tiny = { name: "tiny-preset", description: "a definition preset", config: { ...DEFAULT_CONFIG, preset: "tiny-preset", workload: "definition", definition, knobs: { transactions_per_second: 5 } } };

/** The page, with POST /runs recording each request in `created` and answering `answer` (a new run by default). */
function renderPage(created: unknown[], answer: { status: number; body: unknown } = { status: 201, body: makeRun("new1", { status: "starting" }) }) {
  vi.stubGlobal(
    "fetch",
    vi.fn(
      fetchStub({
        "GET /presets": () => ({ body: [light, tiny] }),
        "POST /runs": (_url, init) => {
          created.push(JSON.parse(String(init?.body)));
          return answer;
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

/** Picks preset `name` once the presets have loaded. */
async function choosePreset(name: string) {
  const select = await screen.findByTestId("preset-select");
  await waitFor(() => expect(screen.getByRole("option", { name })).toBeInTheDocument());
  fireEvent.change(select, { target: { value: name } });
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

    fireEvent.click(screen.getByTestId("start-run"));
    expect(screen.getByTestId("form-error")).toHaveTextContent("Fix the fields marked in red first.");
    expect(created).toEqual([]);
  });

  it("starts a run from a preset with only the changed fields as overrides", async () => {
    const created: unknown[] = [];
    renderPage(created);
    await choosePreset("light");
    expect(screen.getByText("1 tx/s, 5 mutations, 1 watcher")).toBeInTheDocument();
    fireEvent.change(screen.getByTestId("field-duration_s"), { target: { value: "30" } });
    fireEvent.change(screen.getByTestId("field-watcher.poll_interval_ms"), { target: { value: "250" } });
    fireEvent.change(screen.getByTestId("field-name"), { target: { value: "  my run " } });
    fireEvent.click(screen.getByTestId("start-run"));
    await screen.findByText("live page");
    expect(created).toEqual([{ preset: "light", overrides: { duration_s: 30, watcher: { poll_interval_ms: 250 } }, name: "my run" }]);
  });

  it("shows a definition preset's knobs at the preset's values and sends a changed one by name", async () => {
    // Found after the switch: the light preset (a run of change_watcher.yaml) showed none of its
    // knobs, so its rate could not be set before the run started
    const created: unknown[] = [];
    renderPage(created);
    await choosePreset("tiny-preset");
    const rate = await screen.findByTestId("field-knobs.transactions_per_second");
    expect(rate).toHaveValue(5); // the preset's, not the definition's default of 1
    expect(screen.getByTestId("field-knobs.preload_rows")).toHaveValue(0); // not live, still set before the start
    fireEvent.change(rate, { target: { value: "0" } });
    expect(screen.getByTestId("error-knobs.transactions_per_second")).toBeInTheDocument(); // below its min
    fireEvent.change(rate, { target: { value: "12" } });
    fireEvent.change(screen.getByTestId("field-knobs.preload_rows"), { target: { value: "1000" } });
    fireEvent.click(screen.getByTestId("start-run"));
    await screen.findByText("live page");
    expect(created).toEqual([{ preset: "tiny-preset", overrides: { knobs: { transactions_per_second: 12, preload_rows: 1000 } } }]);
  });

  it("says where a definition run starts when workload 'definition' is chosen without one, and sends nothing", async () => {
    // Found as a new user: the option was offered, and Start answered "config: Value error,
    // workload 'definition' goes with a definition (config.definition) ... (got workload 'definition')"
    const created: unknown[] = [];
    renderPage(created);
    await screen.findByTestId("preset-select");
    await act(async () => {});
    fireEvent.change(screen.getByTestId("field-workload"), { target: { value: "definition" } });
    expect(screen.getByTestId("error-workload")).toHaveTextContent(
      "A definition run starts from the Workloads page, where you write or pick one, or from a preset that carries one (shop-googlesql).",
    );
    fireEvent.click(screen.getByTestId("start-run"));
    expect(screen.getByTestId("form-error")).toHaveTextContent("Fix the fields marked in red first.");
    expect(created).toEqual([]);
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

  it("places the server's 422 on the field it names, and sends a rule that ties fields to the server", async () => {
    const sent: unknown[] = [];
    renderPage(sent, {
      status: 422,
      body: {
        detail: "watcher.shard_filter 'none' needs watcher.watchers = 1 (got 3): only a fixed shard list can be split between watchers",
        field: "watcher.shard_filter",
      },
    });
    await screen.findByTestId("preset-select");
    await act(async () => {});
    fireEvent.change(screen.getByTestId("field-watcher.shard_filter"), { target: { value: "none" } });
    fireEvent.change(screen.getByTestId("field-watcher.watchers"), { target: { value: "3" } });
    // The form knows each field's bounds, not the rule between two of them.
    expect(screen.queryByTestId("error-watcher.shard_filter")).toBeNull();
    fireEvent.click(screen.getByTestId("start-run"));
    const error = await screen.findByTestId("error-watcher.shard_filter");
    expect(error).toHaveTextContent(/^watcher\.shard_filter 'none' needs watcher\.watchers = 1 \(got 3\)/);
    expect(screen.getByTestId("section-watcher")).toHaveAttribute("open");
    expect(screen.getByTestId("field-watcher.shard_filter")).toHaveAttribute("aria-invalid", "true");
    expect(sent).toHaveLength(1);
    // Any change may have fixed the rule: the server's answer goes until Start asks again.
    fireEvent.change(screen.getByTestId("field-watcher.watchers"), { target: { value: "1" } });
    expect(screen.queryByTestId("error-watcher.shard_filter")).toBeNull();
  });

  it("places FastAPI's own body errors ({loc, msg}) on their fields too", async () => {
    renderPage([], {
      status: 422,
      body: { detail: [{ loc: ["body", "config", "target", "database"], msg: "Value error, database spanload is locked", type: "value_error" }] },
    });
    await screen.findByTestId("preset-select");
    fireEvent.click(screen.getByTestId("start-run"));
    expect(await screen.findByTestId("error-target.database")).toHaveTextContent("database spanload is locked");
    expect(screen.getByTestId("form-error")).toHaveTextContent("config.target.database: Value error, database spanload is locked");
  });
});
