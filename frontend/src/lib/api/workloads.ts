// /api/workloads: the built-in definitions, the JSON Schema of a definition file, and validation
// (with an optional dry run: each operation executed once, writes rolled back) of a definition's text.
import type { ValidationPublic, WorkloadPublic, WorkloadsPublic } from "@/lib/types";
import { enc, request } from "./client";

export type Validation = ValidationPublic;

export const listWorkloads = (signal?: AbortSignal) => request<WorkloadsPublic>("/workloads", { signal });
export const getWorkload = (name: string, signal?: AbortSignal) => request<WorkloadPublic>(`/workloads/${enc(name)}`, { signal });
export const getWorkloadSchema = (signal?: AbortSignal) => request<Record<string, unknown>>("/workloads/schema", { signal });
/** 200 when the definition is sound; 422 (an ApiError with `problems`, each on its line) when not. */
export const validateWorkload = (source: string, dryRun = false) =>
  request<Validation>("/workloads/validate", { method: "POST", body: dryRun ? { source, dry_run: true } : { source } });
