// /api/health: is the server up.
import type { Health } from "@/lib/types";
import { request } from "./client";

export const fetchHealth = (signal?: AbortSignal) => request<Health>("/health", { signal });
