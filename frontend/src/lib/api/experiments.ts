// /api/experiments: the seed reports' experiments, each variant a preset run on the experiment's database.
import type { components } from "./schema.gen";
import { api, unwrap } from "./client";

export type Experiment = components["schemas"]["ExperimentPublic"];

export const listExperiments = (signal?: AbortSignal) => unwrap(api.GET("/api/experiments", { signal }));
