// /api/runs/{id}/samples: a run's stored samples, downsampled on the server.
import type { Sample, SamplesPublic } from "@/lib/types";
import { enc, request } from "./client";

export interface SamplesQuery {
  from?: number;
  to?: number;
  max_points?: number;
}

export async function fetchSamples(id: string, query: SamplesQuery = {}, signal?: AbortSignal): Promise<Sample[]> {
  const payload = await request<SamplesPublic | Sample[]>(`/runs/${enc(id)}/samples`, { query: { ...query }, signal });
  return Array.isArray(payload) ? payload : payload.data;
}
