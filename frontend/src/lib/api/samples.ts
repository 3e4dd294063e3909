// /api/runs/{id}/samples: a run's stored samples, downsampled on the server.
import type { Sample } from "@/lib/types";
import { api, unwrap } from "./client";
import type { operations } from "./schema.gen";

export type SamplesQuery = NonNullable<operations["get_samples_api_runs__run_id__samples_get"]["parameters"]["query"]>;

export async function fetchSamples(id: string, query: SamplesQuery = {}, signal?: AbortSignal): Promise<Sample[]> {
  const payload = await unwrap(api.GET("/api/runs/{run_id}/samples", { params: { path: { run_id: id }, query }, signal }));
  return payload.data;
}
