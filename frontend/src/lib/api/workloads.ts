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
/** Save the definition's text as the next version of its name (the same text as the latest adds none). */
export const saveWorkload = (source: string) => unwrap(api.POST("/api/workloads/saved", { body: { source } }));
/** A saved definition: its latest version, or the version asked for. */
export const getSavedWorkload = (name: string, version?: number, signal?: AbortSignal) =>
  version === undefined
    ? unwrap(api.GET("/api/workloads/saved/{name}", { params: { path: { name } }, signal }))
    : unwrap(api.GET("/api/workloads/saved/{name}/{version}", { params: { path: { name, version } }, signal }));
