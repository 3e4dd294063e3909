// /api/presets: the named starting configs.
import type { Preset } from "@/lib/types";
import { api, unwrap } from "./client";

export const fetchPresets = async (signal?: AbortSignal): Promise<Preset[]> => normalizePresets(await unwrap(api.GET("/api/presets", { signal })));

/** `GET /api/presets` may answer a list of presets or a `{name: preset}` map. */
export function normalizePresets(payload: unknown): Preset[] {
  const list = Array.isArray(payload)
    ? payload
    : payload && typeof payload === "object" && "data" in payload && Array.isArray((payload as { data: unknown }).data)
      ? (payload as { data: unknown[] }).data
      : payload && typeof payload === "object"
        ? Object.entries(payload as Record<string, unknown>).map(([name, value]) =>
            value && typeof value === "object" && "config" in value ? { name, ...(value as object) } : { name, config: value },
          )
        : [];
  return list.filter((p): p is Preset => !!p && typeof p === "object" && "name" in p && "config" in p);
}

