// /api/runs: list, read, create, edit, delete a run, and drive a live one.
import type { ConfigPatch, RunCreate, RunUpdate } from "@/lib/types";
import { getToken } from "@/lib/token";
import { API_BASE, api, buildQuery, enc, unwrap } from "./client";
import type { operations } from "./schema.gen";

export type RunsQuery = NonNullable<operations["list_runs_api_runs_get"]["parameters"]["query"]>;

const run = (id: string) => ({ params: { path: { run_id: id } } });

export const listRuns = (query: RunsQuery = {}, signal?: AbortSignal) => unwrap(api.GET("/api/runs", { params: { query }, signal }));
export const getRun = (id: string, signal?: AbortSignal) => unwrap(api.GET("/api/runs/{run_id}", { ...run(id), signal }));
export const createRun = (body: RunCreate) => unwrap(api.POST("/api/runs", { body }));
export const updateRun = (id: string, body: RunUpdate) => unwrap(api.PATCH("/api/runs/{run_id}", { ...run(id), body }));
export const deleteRun = (id: string) => unwrap(api.DELETE("/api/runs/{run_id}", run(id)));
export const patchConfig = (id: string, patch: ConfigPatch) => unwrap(api.PATCH("/api/runs/{run_id}/config", { ...run(id), body: patch }));
export const pauseRun = (id: string) => unwrap(api.POST("/api/runs/{run_id}/pause", run(id)));
export const resumeRun = (id: string) => unwrap(api.POST("/api/runs/{run_id}/resume", run(id)));
export const stopRun = (id: string) => unwrap(api.POST("/api/runs/{run_id}/stop", run(id)));

/** A download link; it carries the token in the query, as a link cannot send a header. */
export const exportUrl = (id: string, format: "json" | "csv") => `${API_BASE}/runs/${enc(id)}/export${buildQuery({ format, token: getToken() })}`;
