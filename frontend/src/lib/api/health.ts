// /api/health: is the server up.
import { api, unwrap } from "./client";

export const fetchHealth = (signal?: AbortSignal) => unwrap(api.GET("/api/health", { signal }));

/** POST /api/health/origin: resolves when this page's Origin may change state and open live
 * streams; rejects with the server's sentence (403) when the Origin check refuses it. */
export const checkOrigin = () => unwrap(api.POST("/api/health/origin"));
