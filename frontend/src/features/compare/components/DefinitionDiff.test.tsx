import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "@/lib/knobs";
import { lineDiff } from "@/lib/lineDiff";
import type { ComparePublic, RunConfig } from "@/lib/types";
import { makeRun } from "@/test/fixtures";
import { DefinitionDiff } from "./DefinitionDiff";

const definition = (rate: number) => ({ name: "library", knobs: { lend_rate: { default: 4, max: 200 } }, operations: { lend: { rate: "$lend_rate" }, browse: { rate } } });
const run = (id: string, def: unknown) => makeRun(id, { config: { ...DEFAULT_CONFIG, workload: "definition", definition: def } as unknown as RunConfig });

describe("DefinitionDiff", () => {
  it("diffs lines by their longest common subsequence", () => {
    expect(lineDiff(["a", "b", "c"], ["a", "x", "c"]).map((d) => `${d.kind[0]}${d.text}`)).toEqual(["sa", "rb", "ax", "sc"]);
  });

  it("shows what changed in a run's definition against the baseline's, and nothing when they ran the same", () => {
    const comparison = { runs: [run("a", definition(10)), run("b", definition(25))], config_diff: [] } as unknown as ComparePublic;
    const { rerender } = render(<DefinitionDiff comparison={comparison} labels={["A", "B"]} />);
    const diff = screen.getByTestId("definition-diff-1");
    expect(diff.querySelector(".diff-removed")).toHaveTextContent("- operations.browse.rate: 10");
    expect(diff.querySelector(".diff-added")).toHaveTextContent("+ operations.browse.rate: 25");
    // Only the changed lines and one line of context: not the knob further away.
    expect(diff).not.toHaveTextContent("knobs.lend_rate");
    const same = { runs: [run("a", definition(10)), run("b", definition(10))], config_diff: [] } as unknown as ComparePublic;
    rerender(<DefinitionDiff comparison={same} labels={["A", "B"]} />);
    expect(screen.getByTestId("definition-diff")).toHaveTextContent("The runs ran the same definition.");
  });
});
