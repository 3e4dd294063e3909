import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "@/lib/knobs";
import type { RunConfig } from "@/lib/types";
import { ConfigTable } from "./ConfigTable";

const captions = () => [...screen.getByTestId("config-table").querySelectorAll("caption")].map((c) => c.textContent);

describe("ConfigTable", () => {
  it("shows the sections a change-watcher run uses, without TPC-C's", () => {
    render(<ConfigTable config={{ ...DEFAULT_CONFIG, workload: "change_watcher" }} />);
    expect(captions()).toEqual(["Run", "Target", "Updater (writes)", "Change watchers", "Readers", "Client library"]);
  });

  it("shows TPC-C's section, and not the report workloads' ones, for a TPC-C run", () => {
    render(<ConfigTable config={{ ...DEFAULT_CONFIG, workload: "tpcc" } as RunConfig} />);
    expect(captions()).toEqual(["Run", "Target", "TPC-C", "Client library"]);
  });

  it("shows a definition run's knobs, set or default, and not the report workloads' sections", () => {
    const definition = {
      name: "library",
      knobs: { lend_rate: { default: 20, min: 1, max: 5000, unit: "tx/s", help: "loans per second" }, members: { default: 500 } },
      operations: {},
    };
    const changes = [{ field: "knobs.lend_rate", at_start: 20, at_end: 8, steps: [{ elapsed_s: 12, value: 8 }] }];
    render(<ConfigTable config={{ ...DEFAULT_CONFIG, workload: "definition", definition, knobs: { members: 800 } } as unknown as RunConfig} changes={changes} />);
    expect(captions()).toEqual(["Run", "Target", "Client library", "Knobs of library"]);
    expect(screen.getByTestId("config-knobs.members")).toHaveTextContent(/^800$/);
    expect(screen.getByTestId("config-knobs.lend_rate")).toHaveTextContent("20 → 8 tx/s changed live at +12s");
  });

  it("writes one process and one watcher in the singular, two in the plural", () => {
    const { unmount } = render(<ConfigTable config={{ ...DEFAULT_CONFIG, processes: 1, watcher: { ...DEFAULT_CONFIG.watcher, watchers: 1 } }} />);
    expect(screen.getByTestId("config-processes")).toHaveTextContent(/^1 process$/);
    expect(screen.getByTestId("config-watcher.watchers")).toHaveTextContent(/^1 watcher$/);
    unmount();
    render(<ConfigTable config={{ ...DEFAULT_CONFIG, processes: 2, watcher: { ...DEFAULT_CONFIG.watcher, watchers: 2 } }} />);
    expect(screen.getByTestId("config-processes")).toHaveTextContent(/^2 processes$/);
    expect(screen.getByTestId("config-watcher.watchers")).toHaveTextContent(/^2 watchers$/);
  });

  it("writes a definition's knob's countable unit in the singular after exactly one", () => {
    const definition = { name: "cw", knobs: { preload_rows: { default: 0, unit: "rows" }, batch_rows: { default: 6, unit: "rows" } }, operations: {} };
    render(<ConfigTable config={{ ...DEFAULT_CONFIG, workload: "definition", definition, knobs: { preload_rows: 1 } } as unknown as RunConfig} />);
    expect(screen.getByTestId("config-knobs.preload_rows")).toHaveTextContent(/^1 row$/);
    expect(screen.getByTestId("config-knobs.batch_rows")).toHaveTextContent(/^6 rows$/);
  });

  it("shows a field changed live as at start → at end, with when it changed", () => {
    const changes = [
      { field: "updater.transactions_per_second", at_start: 10, at_end: 20, steps: [{ elapsed_s: 20, value: 20 }] },
      { field: "watcher.poll_interval_ms", at_start: 1000, at_end: 500, steps: [{ elapsed_s: 20, value: 250 }, { elapsed_s: 65, value: 500 }] },
    ];
    render(<ConfigTable config={{ ...DEFAULT_CONFIG, workload: "change_watcher" }} changes={changes} />);
    expect(screen.getByTestId("config-updater.transactions_per_second")).toHaveTextContent("10 → 20 tx/s changed live at +20s");
    expect(screen.getByTestId("config-watcher.poll_interval_ms")).toHaveTextContent("1000 → 500 ms changed live at +20s, +1m 05s");
    expect(screen.getByTestId("config-updater.key_space")).not.toHaveAttribute("data-changed");
  });
});
