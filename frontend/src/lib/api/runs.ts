// /api/runs: list, read, create, edit, delete a run, and drive a live one.
import type { ConfigPatch, RunCreate, RunPublic, RunsPublic, RunUpdate } from "@/lib/types";
import { API_BASE, buildQuery, enc, request } from "./client";
import { getToken } from "@/lib/token";

export interface RunsQuery {
  status?: string;
  preset?: string;
  name?: string;
  limit?: number;
  offset?: number;
}

export const listRuns = (query: RunsQuery = {}, signal?: AbortSignal) => request<RunsPublic>("/runs", { query: { ...query }, signal });
export const getRun = (id: string, signal?: AbortSignal) => request<RunPublic>(`/runs/${enc(id)}`, { signal });
export const createRun = (body: RunCreate) => request<RunPublic>("/runs", { method: "POST", body });
export const updateRun = (id: string, body: RunUpdate) => request<RunPublic>(`/runs/${enc(id)}`, { method: "PATCH", body });
export const deleteRun = (id: string) => request<void>(`/runs/${enc(id)}`, { method: "DELETE" });
export const patchConfig = (id: string, patch: ConfigPatch) => request<unknown>(`/runs/${enc(id)}/config`, { method: "PATCH", body: patch });
export const pauseRun = (id: string) => request<RunPublic>(`/runs/${enc(id)}/pause`, { method: "POST" });
export const resumeRun = (id: string) => request<RunPublic>(`/runs/${enc(id)}/resume`, { method: "POST" });
export const stopRun = (id: string) => request<RunPublic>(`/runs/${enc(id)}/stop`, { method: "POST" });

/** A download link; it carries the token in the query, as a link cannot send a header. */
export const exportUrl = (id: string, format: "json" | "csv") => `${API_BASE}/runs/${enc(id)}/export${buildQuery({ format, token: getToken() })}`;
