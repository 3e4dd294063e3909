// An experiment's variants run back to back: each started with POST /api/runs on the experiment's one
// database, the next only once the one before has ended; then their comparison. The browser drives
// the sequence, as `spanload experiment NAME` does in a terminal (cli/experiment.py).
import type { Experiment } from "@/lib/api/experiments";
import { isActive, type RunCreate, type RunPublic } from "@/lib/types";

export interface ExperimentOptions {
  durationS: number;
  preloadRows: number;
}

export interface VariantProgress {
  preset: string;
  run: RunPublic | null;
}

export interface ExperimentApi {
  createRun: (body: RunCreate) => Promise<RunPublic>;
  getRun: (id: string) => Promise<RunPublic>;
  /** Resolves after ms, or rejects when the experiment is given up (the page left). */
  sleep: (ms: number) => Promise<void>;
}

export const POLL_MS = 1000;

/**
 * The POST /api/runs body of one variant: its preset, the experiment's overrides, the chosen length, and
 * the table size when the reader changed it (two-pc's variants differ in their presets' preloads, which
 * a size sent unchanged would overwrite).
 */
export function variantRequest(experiment: Experiment, preset: string, options: ExperimentOptions, stamp: string): RunCreate {
  const preload = options.preloadRows !== experiment.preload_rows ? { preload: { rows: options.preloadRows } } : {};
  const overrides = { ...experiment.overrides, duration_s: options.durationS, ...preload };
  return { preset, overrides, name: `${experiment.name}: ${preset} (${stamp})`, tags: [`experiment:${experiment.name}`] };
}

/** The compare page of the variants' runs, the first the baseline. */
export function compareUrl(ids: readonly string[]): string {
  return `/compare?ids=${ids.map(encodeURIComponent).join(",")}`;
}

/**
 * Run every variant in order, each after the one before has ended, reporting each poll. Stops at the
 * first variant that does not finish (failed, interrupted, stopped by hand) and throws its reason.
 * Returns the runs' ids, in the variants' order.
 */
export async function runExperiment(
  experiment: Experiment,
  options: ExperimentOptions,
  api: ExperimentApi,
  onProgress: (progress: VariantProgress[]) => void,
  stamp = new Date().toISOString().slice(11, 16),
): Promise<string[]> {
  const progress: VariantProgress[] = experiment.variants.map((v) => ({ preset: v.preset, run: null }));
  const show = () => onProgress(progress.map((p) => ({ ...p })));
  show();
  const ids: string[] = [];
  for (const [i, variant] of experiment.variants.entries()) {
    let run = await api.createRun(variantRequest(experiment, variant.preset, options, stamp));
    ids.push(run.id);
    progress[i] = { preset: variant.preset, run };
    show();
    while (isActive(run.status)) {
      await api.sleep(POLL_MS);
      run = await api.getRun(run.id);
      progress[i] = { preset: variant.preset, run };
      show();
    }
    if (run.status !== "finished") {
      throw new Error(`Variant ${variant.preset} ${run.status}${run.failure_reason ? `: ${run.failure_reason}` : ""}; the experiment stopped there.`);
    }
  }
  return ids;
}
