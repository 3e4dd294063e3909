// A preset's config laid over the defaults.
import { definitionControls, definitionValues } from "@/lib/definition";
import { DEFAULT_CONFIG, getPath, type Knob, KNOBS, setPath } from "@/lib/knobs";
import type { Preset, RunConfig, WorkloadDefinition } from "@/lib/types";

function merge(base: unknown, over: unknown): unknown {
  if (!over || typeof over !== "object" || Array.isArray(over) || !base || typeof base !== "object") return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over as Record<string, unknown>)) out[k] = merge(out[k], v);
  return out;
}

/** The preset's own values over the defaults, so every knob has a value to edit. */
export function withPreset(preset: Preset | undefined): RunConfig {
  if (!preset) return DEFAULT_CONFIG;
  return { ...(merge(DEFAULT_CONFIG, preset.config) as RunConfig), preset: preset.name };
}

/** The knobs of `next` that differ from `base` (the preset's config), nested like RunConfig. */
export function overridesFor(base: RunConfig, next: RunConfig): Record<string, unknown> {
  let out: Record<string, unknown> = {};
  for (const knob of KNOBS) {
    if (knob.path === "name") continue;
    const value = getPath(next, knob.path);
    if (value !== getPath(base, knob.path)) out = setPath(out, knob.path, value);
  }
  return out;
}

/** The load-shape fields of `next` that differ from `base`, for a preset's overrides. */
export function loadShapeOverrides(base: RunConfig, next: RunConfig): Partial<RunConfig> {
  const out: Partial<RunConfig> = {};
  if (JSON.stringify(base.profile ?? null) !== JSON.stringify(next.profile ?? null)) out.profile = next.profile ?? null;
  if (JSON.stringify(base.capacity ?? null) !== JSON.stringify(next.capacity ?? null)) out.capacity = next.capacity ?? null;
  if (JSON.stringify(base.abort_on ?? []) !== JSON.stringify(next.abort_on ?? [])) out.abort_on = next.abort_on ?? [];
  return out;
}

/** A definition run's controls (its knobs, each operation's pacing not set by a knob), or none. */
export function definitionKnobs(config: RunConfig): Knob[] {
  const definition = config.workload === "definition" ? (config.definition as WorkloadDefinition | null | undefined) : null;
  return definition ? definitionControls(definition) : [];
}

/** `config` with every definition knob and pacing at its value in the run (set, or the default). */
export function withDefinitionValues(config: RunConfig): RunConfig {
  return config.workload === "definition" && config.definition ? ({ ...config, ...definitionValues(config) } as RunConfig) : config;
}

/** The definition knobs and pacings of `next` that differ from `base`, nested like RunConfig
 * (knobs.<name>, operations.<op>.rate): a preset's knobs are changed by name, not through the
 * report's fixed sections. */
export function definitionOverrides(base: RunConfig, next: RunConfig): Record<string, unknown> {
  const from = withDefinitionValues(base);
  const to = withDefinitionValues(next);
  let out: Record<string, unknown> = {};
  for (const knob of definitionKnobs(next)) {
    const value = getPath(to, knob.path);
    if (value !== getPath(from, knob.path)) out = setPath(out, knob.path, value);
  }
  return out;
}
