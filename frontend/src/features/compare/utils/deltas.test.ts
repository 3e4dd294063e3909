import { describe, expect, it } from "vitest";
import { deltaText, deltaTone } from "./deltas";

const cell = (delta: number | null, percent: number | null, uncertainty: number | null, significant: boolean | null) => ({ delta, percent, uncertainty, significant });

describe("deltaTone", () => {
  it("colours only a delta beyond the noise, by the metric's direction", () => {
    expect(deltaTone(cell(-2, -20, 1, true), "lower")).toBe("better");
    expect(deltaTone(cell(3, 30, 1, true), "lower")).toBe("worse");
    expect(deltaTone(cell(5, 50, 1, true), "higher")).toBe("better");
    expect(deltaTone(cell(-5, -50, 1, true), "higher")).toBe("worse");
  });

  it("leaves a delta inside the noise neutral however large its percent", () => {
    // issue 23: -12.7 % achieved tx/s at the same target was painted red
    expect(deltaTone(cell(-1.27, -12.7, 1.5, false), "higher")).toBe("noise");
    expect(deltaTone(cell(0.4, 6.7, 0.9, false), "lower")).toBe("noise");
  });

  it("says nothing without a delta, a direction or an assessment", () => {
    expect(deltaTone(cell(null, null, null, null), "higher")).toBe("neutral");
    expect(deltaTone(cell(5, 50, 1, true), null)).toBe("neutral");
    expect(deltaTone(cell(500, 50, null, null), "higher")).toBe("neutral"); // totals: not judged
  });
});

describe("deltaText", () => {
  it("gives the change with its interval, and says when it is not significant", () => {
    expect(deltaText(cell(-1.27, -12.7, 1.5, false), 10)).toBe("-12.7% ± 15.0%, not significant");
    expect(deltaText(cell(8.9, 890, 0.4, true), 1)).toBe("+890.0% ± 40.0%");
  });

  it("falls back to the absolute change where the baseline is 0, and to the bare delta where noise was not judged", () => {
    expect(deltaText(cell(0.5, null, 0.2, true), 0)).toBe("+0.50 ± 0.20");
    expect(deltaText(cell(500, 50, null, null), 1000)).toBe("+500.00 (+50.0%)");
  });
});
