import { fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "@/lib/knobs";
import type { RunConfig } from "@/lib/types";
import { loadShapeOverrides } from "../api/presets";
import { LoadShapeSection } from "./LoadShapeSection";

let last: RunConfig = DEFAULT_CONFIG;

function Harness({ start }: { start: RunConfig }) {
  const [config, setConfig] = useState(start);
  last = config;
  return <LoadShapeSection config={config} onChange={setConfig} />;
}

describe("LoadShapeSection", () => {
  it("edits a profile's stages, then a capacity search instead, and the abort conditions", () => {
    render(<Harness start={DEFAULT_CONFIG} />);
    fireEvent.click(screen.getByTestId("shape-profile"));
    fireEvent.change(screen.getByTestId("stage-0-rate"), { target: { value: "50" } });
    fireEvent.click(screen.getByTestId("stage-add"));
    fireEvent.change(screen.getByTestId("stage-1-kind"), { target: { value: "ramp" } });
    fireEvent.change(screen.getByTestId("stage-1-to_rate"), { target: { value: "2000" } });
    expect(last.profile?.stages).toEqual([
      { kind: "hold", rate: 50, duration_s: 60 },
      { kind: "ramp", from_rate: 100, to_rate: 2000, duration_s: 300 },
    ]);
    expect(last.capacity).toBeNull();
    fireEvent.click(screen.getByTestId("shape-capacity")); // a search sets the rate itself: no profile beside it
    fireEvent.change(screen.getByTestId("capacity-bisect"), { target: { value: "2" } });
    fireEvent.change(screen.getByTestId("capacity-latency_ms"), { target: { value: "" } });
    expect(last.profile).toBeNull();
    expect([last.capacity?.start_rate, last.capacity?.bisect, last.capacity?.latency_ms]).toEqual([200, 2, null]);
    fireEvent.change(screen.getByTestId("abort-on"), { target: { value: "updater.p99_ms>500 for 30s\n\nerrors_ps>10" } });
    expect(last.abort_on).toEqual(["updater.p99_ms>500 for 30s", "errors_ps>10"]);
  });

  it("sends a preset only the load-shape fields that differ from it, and null to clear its search", () => {
    const capacity = { operation: null, start_rate: 1, step: 1, max_rate: 9, min_step_s: 10, max_step_s: 60, stability_pct: 10, percentile: "p99" as const, latency_ms: 100, errors_pct: 1, achieved_pct: 90, server_cpu_pct: null, bisect: 0, back_off_s: 0, also: [] };
    const preset: RunConfig = { ...DEFAULT_CONFIG, capacity };
    expect(loadShapeOverrides(preset, preset)).toEqual({});
    expect(loadShapeOverrides(preset, { ...preset, capacity: null, abort_on: ["errors_ps>1"] })).toEqual({ capacity: null, abort_on: ["errors_ps>1"] });
  });
});
