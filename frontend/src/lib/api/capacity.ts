// A run's capacity curve and live edits of its load profile.
import type { components } from "./schema.gen";
import { ApiError, api, unwrap } from "./client";

export type CapacityCurve = components["schemas"]["CapacityCurve"];
export type CurvePoint = components["schemas"]["CurvePoint"];
export type ProfileEdit = components["schemas"]["ProfileEdit"];
export type ProfileStatus = components["schemas"]["ProfileStatus"];

/** The curve so far (a run under way) or final; null when the run has no search or no step judged yet. */
export async function getCapacityCurve(id: string, signal?: AbortSignal): Promise<CapacityCurve | null> {
  try {
    return await unwrap(api.GET("/api/runs/{run_id}/capacity-curve", { params: { path: { run_id: id } }, signal }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

export const editProfile = (id: string, edit: ProfileEdit) =>
  unwrap(api.POST("/api/runs/{run_id}/profile", { params: { path: { run_id: id } }, body: edit }));
