// /api/compare: two to six runs side by side.
import { api, unwrap } from "./client";

export const fetchComparison = (ids: readonly string[], signal?: AbortSignal) => unwrap(api.GET("/api/compare", { params: { query: { ids: ids.join(",") } }, signal }));
