// /api/compare: two to six runs side by side.
import type { ComparePublic } from "@/lib/types";
import { request } from "./client";

export const fetchComparison = (ids: readonly string[], signal?: AbortSignal) => request<ComparePublic>("/compare", { query: { ids }, signal });
