import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { WorkersByNode } from "./WorkersByNode";

const worker = (index: number, node: string | null, operations: number, cpu_s: number) => ({
  index, runtime: "python", pid: 100 + index, host: "box", node, operations, cpu_s, cpu_ms_per_op: null,
});

describe("WorkersByNode", () => {
  it("groups the workers by their Ray node with their operations and CPU added up", () => {
    render(
      <WorkersByNode
        workers={[
          worker(0, "aaaaaaaaaaaaaaaa0001", 1000, 1.25),
          worker(1, "bbbbbbbbbbbbbbbb0002", 700, 0.5),
          worker(2, "aaaaaaaaaaaaaaaa0001", 300, 0.25),
        ]}
      />,
    );
    const rows = within(screen.getByTestId("workers-by-node")).getAllByTestId("node-row");
    expect(rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent))).toEqual([
      ["aaaaaaaaaaaa", "box", "0, 2", "1,300", "1.50"],
      ["bbbbbbbbbbbb", "box", "1", "700", "0.50"],
    ]);
    expect(rows.at(0)?.querySelector("td")?.getAttribute("title")).toBe("aaaaaaaaaaaaaaaa0001");
  });

  it("shows nothing when every worker was a local process", () => {
    render(<WorkersByNode workers={[worker(0, null, 10, 0.1)]} />);
    expect(screen.queryByTestId("workers-by-node")).toBeNull();
  });
});
