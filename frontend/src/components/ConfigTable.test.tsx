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
});
