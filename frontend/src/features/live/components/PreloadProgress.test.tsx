import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { initialLiveState, liveReducer } from "../hooks/liveState";
import { PreloadProgress } from "./PreloadProgress";

const progress = { rows: 200_000, rows_done: 50_000, rows_per_s: 12_500.4, percent: 25, eta_s: 12, elapsed_s: 4, done: false };

describe("PreloadProgress", () => {
  it("shows percent, rows, rows/s and the ETA while the run is preloading", () => {
    render(<PreloadProgress status="preloading" preload={progress} />);
    expect(screen.getByTestId("preload-progress-text").textContent).toBe("25.0% · 50,000 / 200,000 rows · 12,500 rows/s · ETA 12s");
    expect(screen.getByRole("progressbar", { name: "preload progress" }).getAttribute("value")).toBe("25");
  });

  it("waits for the first progress, and is gone once the run is past the load phase", () => {
    const { rerender } = render(<PreloadProgress status="preloading" preload={null} />);
    expect(screen.getByTestId("preload-progress-text").textContent).toBe("Starting the load…");
    rerender(<PreloadProgress status="running" preload={{ ...progress, done: true, percent: 100 }} />);
    expect(screen.queryByTestId("preload-progress")).toBeNull();
  });
});

describe("liveReducer and the load phase", () => {
  it("keeps the latest progress, from a preload message or the snapshot", () => {
    const next = liveReducer(initialLiveState, { type: "preload", preload: progress });
    expect(next.preload).toEqual(progress);
    const later = liveReducer(next, { type: "preload", preload: { ...progress, rows_done: 60_000, percent: 30 } });
    expect(later.preload?.rows_done).toBe(60_000);
  });
});
