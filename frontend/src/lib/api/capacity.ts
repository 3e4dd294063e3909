// A run's capacity curve and live edits of its load profile.
import type { components } from "./schema.gen";
import { ApiError, enc, request } from "./client";

export type CapacityCurve = components["schemas"]["CapacityCurve"];
export type CurvePoint = components["schemas"]["CurvePoint"];
export type ProfileEdit = components["schemas"]["ProfileEdit"];
export type ProfileStatus = components["schemas"]["ProfileStatus"];

/** The curve so far (a run under way) or final; null when the run has no search or no step judged yet. */
export async function getCapacityCurve(id: string, signal?: AbortSignal): Promise<CapacityCurve | null> {
  try {
    return await request<CapacityCurve>(`/runs/${enc(id)}/capacity-curve`, { signal });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

export const editProfile = (id: string, edit: ProfileEdit) => request<ProfileStatus>(`/runs/${enc(id)}/profile`, { method: "POST", body: edit });
