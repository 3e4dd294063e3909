// /api/workloads: the built-in definitions, the JSON Schema of a definition file, and validation
// (with an optional dry run: each operation executed once, writes rolled back) of a definition's text.
import type { ValidationPublic } from "@/lib/types";
import { api, unwrap } from "./client";

export type Validation = ValidationPublic;

export const listWorkloads = (signal?: AbortSignal) => unwrap(api.GET("/api/workloads", { signal }));
export const getWorkload = (name: string, signal?: AbortSignal) => unwrap(api.GET("/api/workloads/{name}", { params: { path: { name } }, signal }));
export const getWorkloadSchema = (signal?: AbortSignal) => unwrap(api.GET("/api/workloads/schema", { signal }));
/** 200 when the definition is sound; 422 (an ApiError with `problems`, each on its line) when not. */
export const validateWorkload = (source: string, dryRun = false) =>
  unwrap(api.POST("/api/workloads/validate", { body: { source, dry_run: dryRun } }));
/** The tables and columns of a database of the server's target (default: the runs'), for completion. */
export const getCatalog = (database?: string, signal?: AbortSignal) =>
  unwrap(api.GET("/api/workloads/catalog", { params: { query: database ? { database } : {} }, signal }));
