// A definition run's charts, generated from its definition (each operation's, then errors by the codes
// its samples saw); null for any other run, which keeps the report workloads' charts.
import { useMemo } from "react";
import { definitionCharts, errorCodes } from "@/lib/definition";
import type { ChartSpec } from "@/lib/series";
import type { RunConfig, Sample, WorkloadDefinition } from "@/lib/types";

export function useDefinitionCharts(
  config: RunConfig | null | undefined,
  samples: readonly Sample[],
): { definition: WorkloadDefinition | null; charts: ChartSpec[] | null } {
  const definition = config?.workload === "definition" ? ((config.definition ?? null) as WorkloadDefinition | null) : null;
  const codes = errorCodes(samples).join(",");
  const charts = useMemo(() => (definition ? definitionCharts(definition, codes ? codes.split(",") : []) : null), [definition, codes]);
  return { definition, charts };
}
