// A definition run's charts, generated from its definition (each operation's, its watch's, then errors
// by the codes its samples saw); null for any other run, which keeps the report workloads' charts.
// The charts of an operation that is off come last, and are drawn empty while it sends nothing.
import { useMemo } from "react";
import { definitionCharts, errorCodes, offOperations, operationCharts } from "@/lib/definition";
import type { ChartSpec } from "@/lib/series";
import type { RunConfig, Sample, WorkloadDefinition } from "@/lib/types";

export interface DefinitionCharts {
  definition: WorkloadDefinition | null;
  charts: ChartSpec[] | null;
  /** The charts of the operations that are off, by id. */
  off: ReadonlySet<string>;
  /** Why such a chart is empty, by id. */
  emptyText: Partial<Record<string, string>>;
}

export function useDefinitionCharts(config: RunConfig | null | undefined, samples: readonly Sample[]): DefinitionCharts {
  const definition = config?.workload === "definition" ? ((config.definition ?? null) as WorkloadDefinition | null) : null;
  const codes = errorCodes(samples).join(",");
  const offOps = (definition ? offOperations(config) : []).join(",");
  return useMemo(() => {
    if (!definition) return { definition, charts: null, off: new Set(), emptyText: {} };
    const ops = offOps ? offOps.split(",") : [];
    const charts = definitionCharts(definition, codes ? codes.split(",") : [], ops);
    const emptyText: Partial<Record<string, string>> = { errors: "No errors or aborts so far." };
    const off = new Set<string>();
    for (const op of ops) {
      for (const { id } of operationCharts(op)) {
        off.add(id);
        emptyText[id] = `${op} is off in this run.`;
      }
    }
    return { definition, charts, off, emptyText };
  }, [definition, codes, offOps]);
}
