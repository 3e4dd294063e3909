// /api/health: is the server up.
import type { Health } from "@/lib/types";
import { request } from "./client";

export const fetchHealth = (signal?: AbortSignal) => request<Health>("/health", { signal });

/** POST /api/health/origin: resolves when this page's Origin may change state and open live
 * streams; rejects with the server's sentence (403) when the Origin check refuses it. */
export const checkOrigin = () => request<void>("/health/origin", { method: "POST" });
