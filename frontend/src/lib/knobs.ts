// Every knob of a run config: where it appears (its section, whether it is a live control, its
// slider), written here; its words (label, chart-marker short form, unit: the schema's x-label,
// x-short and x-unit, from backend/spanload/model/field_words.py), help (the field's description),
// type, range, options, whether it may be empty and whether it is live, read from the backend's
// OpenAPI schema (lib/api/openapi.json, `make types`). The forms check each field
// against its own bounds as it is typed; rules that tie fields together are the backend's alone,
// and its 422 names the field at fault (`field`), where the form places the answer.
import openapi from "./api/openapi.json";
import { unitFor } from "./format";
import type { ConfigPatch, RunConfig } from "./types";

export type KnobKind = "float" | "int" | "bool" | "enum" | "text";

/** What the UI adds to a config field: where it appears. */
export interface KnobLayout {
  /** Dotted path in RunConfig, e.g. "updater.transactions_per_second". */
  path: string;
  section: "run" | "target" | "tpcc" | "updater" | "watcher" | "reader" | "client";
  /** Shown in the live control panel. */
  control?: boolean;
  /** Slider range for the control panel (the numeric input still takes the full range); max defaults to the bound. */
  slider?: { min: number; max?: number; step: number };
}

export interface Knob extends Omit<KnobLayout, "slider"> {
  /** The field's name in the UI (the schema's x-label). */
  label: string;
  /** A few characters for chart markers (x-short). */
  short: string;
  /** Shown beside the value (x-unit). */
  unit?: string;
  /** One line of help: the field's description in the backend's schema. */
  help: string;
  kind: KnobKind;
  min?: number;
  /** True when min itself is not allowed (pydantic gt). */
  minExclusive?: boolean;
  /** Largest value, or longest text. */
  max?: number;
  options?: readonly string[];
  /** Editable while the run is going (ConfigPatch has it). */
  live: boolean;
  /** May be empty (null). */
  optional: boolean;
  slider?: { min: number; max: number; step: number };
}

// ---- the schema ------------------------------------------------------------------------------

interface JsonSchema {
  type?: string;
  $ref?: string;
  anyOf?: JsonSchema[];
  enum?: string[];
  properties?: Record<string, JsonSchema>;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  maxLength?: number;
  default?: unknown;
  description?: string;
  "x-label"?: string;
  "x-short"?: string;
  "x-unit"?: string;
}

export type Schemas = Record<string, JsonSchema>;

/** The backend's models, from its OpenAPI schema. */
export const SCHEMAS = openapi.components.schemas as unknown as Schemas;

function deref(schema: JsonSchema, schemas: Schemas): JsonSchema {
  const name = schema.$ref?.split("/").pop();
  const target = name === undefined ? schema : schemas[name];
  if (!target) throw new Error(`the OpenAPI schema has no ${String(schema.$ref)}`);
  return target;
}

interface Field {
  schema: JsonSchema;
  nullable: boolean;
  /** The property's own description, else its model's. */
  description?: string;
  /** The property itself, where its words (x-label...) are. */
  property: JsonSchema;
}

/** The schema of a field, with `null` taken out of an anyOf (then `nullable`). */
function unwrap(schema: JsonSchema, schemas: Schemas): Field {
  const branches = schema.anyOf ?? [schema];
  const nonNull = branches.filter((b) => b.type !== "null");
  const only = nonNull.length === 1 ? nonNull[0] : undefined;
  const target = deref(only ?? schema, schemas);
  return { schema: target, nullable: branches.length !== nonNull.length, description: schema.description ?? target.description, property: schema };
}

/** The schema of a dotted path under a model, e.g. ("RunConfig", "watcher.limit"), or undefined. */
export function fieldSchema(model: string, path: string, schemas: Schemas = SCHEMAS): Field | undefined {
  const root = schemas[model] ?? {};
  let current: Field | undefined = { schema: root, nullable: false, property: root };
  for (const part of path.split(".")) {
    const prop: JsonSchema | undefined = current?.schema.properties?.[part];
    current = prop ? unwrap(prop, schemas) : undefined;
  }
  return current;
}

function kindOf(schema: JsonSchema): KnobKind {
  if (schema.enum) return "enum";
  switch (schema.type) {
    case "integer":
      return "int";
    case "number":
      return "float";
    case "boolean":
      return "bool";
    default:
      return "text";
  }
}

/** A knob from its field's schema (`model`'s field at `field`, else `spec.path` in RunConfig). A
 * field the UI shows without its words (x-label, x-short) is an error in the backend's model. */
function fromSchema(spec: KnobLayout, schemas: Schemas = SCHEMAS, model = "RunConfig", field = spec.path, live?: boolean): Knob {
  const found = fieldSchema(model, field, schemas);
  if (!found) throw new Error(`knob ${field} is not a ${model} field in the OpenAPI schema`);
  const { schema, nullable, description, property } = found;
  const label = property["x-label"];
  const short = property["x-short"];
  if (!label || !short) throw new Error(`${model}.${field} has no x-label or x-short: give it words() in the backend's model`);
  const kind = kindOf(schema);
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = kind === "text" ? schema.maxLength : schema.maximum;
  const knob: Knob = {
    ...spec,
    label,
    short,
    help: sentence(description ?? ""),
    kind,
    live: live ?? fieldSchema("ConfigPatch", spec.path, schemas) !== undefined,
    optional: nullable,
    slider: spec.slider && { min: spec.slider.min, max: spec.slider.max ?? max ?? spec.slider.min, step: spec.slider.step },
  };
  if (property["x-unit"]) knob.unit = property["x-unit"];
  if (min !== undefined) knob.min = min;
  if (schema.exclusiveMinimum !== undefined && schema.minimum === undefined) knob.minExclusive = true;
  if (max !== undefined) knob.max = max;
  if (schema.enum) knob.options = schema.enum;
  return knob;
}

/** A definition operation's pacing field (`operations.<op>.rate`...) as a live knob: its bounds,
 * words and help from the backend's OperationPacing, named after the operation. */
export function pacingKnob(operation: string, field: "rate" | "concurrency", slider: { min: number; max: number; step: number }): Knob {
  const knob = fromSchema({ path: `operations.${operation}.${field}`, section: "run", slider }, SCHEMAS, "OperationPacing", field, true);
  return { ...knob, label: `${operation}: ${knob.label}`, short: `${operation} ${knob.short}`, optional: false };
}

/** A model's defaults from the schema: a field's default, null for an optional field (an optional
 * section too: `placement: null` leaves the choice to the server), or a nested model's defaults. */
function defaultsOf(model: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(model.properties ?? {})) {
    const { schema, nullable } = unwrap(prop, SCHEMAS);
    if ("default" in prop) out[name] = prop.default;
    else if (nullable) out[name] = null;
    else if (schema.properties) out[name] = defaultsOf(schema);
  }
  return out;
}

/** "rows per poll" -> "Rows per poll." */
function sentence(text: string): string {
  if (!text) return "";
  const first = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?)]$/.test(first) ? first : `${first}.`;
}

/** Where each run-level field appears, in order; its words are the backend's. */
export const KNOB_LAYOUT: readonly KnobLayout[] = [
  { path: "name", section: "run" },
  { path: "duration_s", section: "run" },
  { path: "warmup_s", section: "run" },
  { path: "workload", section: "run" },
  { path: "processes", section: "run" },
  { path: "runtime", section: "run" },
  { path: "preload.rows", section: "run" },
  { path: "report_interval_s", section: "run" },

  { path: "target.kind", section: "target" },
  { path: "target.emulator_host", section: "target" },
  { path: "target.project", section: "target" },
  { path: "target.instance", section: "target" },
  { path: "target.database", section: "target" },

  { path: "tpcc.warehouses", section: "tpcc" },
  { path: "tpcc.mode", section: "tpcc" },
  { path: "tpcc.terminals", section: "tpcc", control: true, slider: { min: 1, max: 128, step: 1 } },
  { path: "tpcc.transactions_per_second", section: "tpcc", control: true, slider: { min: 1, max: 1000, step: 1 } },
  { path: "tpcc.keying_think_times", section: "tpcc", control: true },
  { path: "tpcc.items", section: "tpcc" },
  { path: "tpcc.customers_per_district", section: "tpcc" },

  { path: "updater.enabled", section: "updater" },
  { path: "updater.transactions_per_second", section: "updater", control: true, slider: { min: 0.5, max: 500, step: 0.5 } },
  { path: "updater.mutations_per_transaction", section: "updater", control: true, slider: { min: 1, max: 500, step: 1 } },
  { path: "updater.parallelism", section: "updater" },
  { path: "updater.mode", section: "updater" },
  { path: "updater.batch_rows", section: "updater" },

  { path: "updater.key_space", section: "updater" },

  { path: "watcher.enabled", section: "watcher" },
  { path: "watcher.watchers", section: "watcher", control: true, slider: { min: 1, step: 1 } },
  { path: "watcher.poll_interval_ms", section: "watcher", control: true, slider: { min: 10, max: 10_000, step: 10 } },
  { path: "watcher.limit", section: "watcher", control: true, slider: { min: 1, max: 100_000, step: 1 } },
  { path: "watcher.table_hint", section: "watcher", control: true },
  { path: "watcher.shard_filter", section: "watcher", control: true },

  { path: "reader.enabled", section: "reader" },
  { path: "reader.reads_per_second", section: "reader", control: true, slider: { min: 1, max: 1000, step: 1 } },
  { path: "reader.concurrency", section: "reader", control: true, slider: { min: 1, max: 128, step: 1 } },
  { path: "reader.think_time_ms", section: "reader", control: true, slider: { min: 0, max: 5000, step: 10 } },
  { path: "reader.query", section: "reader" },
  { path: "reader.staleness_s", section: "reader" },

  { path: "client.interface", section: "client" },
  { path: "client.pgadapter_host", section: "client" },
  { path: "client.multiplexed_sessions", section: "client" },
  { path: "client.session_pool_size", section: "client" },
  { path: "client.timeout_ms", section: "client", control: true, slider: { min: 100, max: 30_000, step: 100 } },
];
/** The knobs of a layout, from a schema's fields (the backend's, unless a test gives its own). */
export function knobsFrom(schemas: Schemas, layout: readonly KnobLayout[] = KNOB_LAYOUT): Knob[] {
  return layout.map((spec) => fromSchema(spec, schemas));
}

export const KNOBS: readonly Knob[] = knobsFrom(SCHEMAS);

export const KNOB_BY_PATH: ReadonlyMap<string, Knob> = new Map(KNOBS.map((k) => [k.path, k]));

export const SECTION_TITLES: Record<Knob["section"], string> = {
  run: "Run",
  target: "Target",
  tpcc: "TPC-C",
  updater: "Updater (writes)",
  watcher: "Change watchers",
  reader: "Readers",
  client: "Client library",
};

/** The sections a workload uses: TPC-C has its own; the reports' workloads the updater, watchers and readers. */
export function sectionUsed(section: Knob["section"], workload: RunConfig["workload"]): boolean {
  if (section === "tpcc") return workload === "tpcc";
  // a definition's knobs and operations say what runs: the report workloads' sections do not apply
  if (section === "updater" || section === "watcher" || section === "reader") return workload !== "tpcc" && workload !== "definition";
  return true;
}

/** The backend's RunConfig defaults, from the schema. */
export const DEFAULT_CONFIG: RunConfig = defaultsOf(SCHEMAS.RunConfig ?? {}) as RunConfig;

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur == null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** A copy of `obj` with `path` set to `value`. */
export function setPath<T>(obj: T, path: string, value: unknown): T {
  const [head, ...rest] = path.split(".");
  const base = (obj ?? {}) as Record<string, unknown>;
  if (head === undefined) return obj;
  return { ...base, [head]: rest.length ? setPath(base[head], rest.join("."), value) : value } as T;
}

/** Check one value against its knob; gives the sentence shown next to the field, or null. */
export function validateKnob(knob: Knob, value: unknown): string | null {
  if (value === null || value === undefined || value === "") {
    return knob.optional || knob.kind === "bool" ? null : `${knob.label} is required.`;
  }
  switch (knob.kind) {
    case "float":
    case "int": {
      const n = typeof value === "number" ? value : Number(value);
      if (!Number.isFinite(n)) return `${knob.label} must be a number.`;
      if (knob.kind === "int" && !Number.isInteger(n)) return `${knob.label} must be a whole number.`;
      const unit = (bound: number) => (knob.unit ? ` ${unitFor(knob, bound)}` : "");
      if (knob.min !== undefined && (knob.minExclusive ? n <= knob.min : n < knob.min)) {
        return `${knob.label} must be ${knob.minExclusive ? "more than" : "at least"} ${knob.min}${unit(knob.min)}.`;
      }
      if (knob.max !== undefined && n > knob.max) return `${knob.label} must be at most ${knob.max.toLocaleString("en-US")}${unit(knob.max)}.`;
      return null;
    }
    case "enum":
      return knob.options?.includes(String(value)) ? null : `${knob.label} must be one of ${knob.options?.join(", ")}.`;
    case "text":
      return knob.max !== undefined && String(value).length > knob.max ? `${knob.label} must be at most ${knob.max} characters.` : null;
    case "bool":
      return typeof value === "boolean" ? null : `${knob.label} must be on or off.`;
  }
}

export type FieldErrors = Record<string, string>;

/** Check every knob of a config against its own bounds; rules that tie fields together are the
 * backend's, which answers 422 with the field at fault. */
export function validateConfig(config: RunConfig, knobs: readonly Knob[] = KNOBS): FieldErrors {
  const errors: FieldErrors = {};
  for (const knob of knobs) {
    const message = validateKnob(knob, getPath(config, knob.path));
    if (message) errors[knob.path] = message;
  }
  return errors;
}

/** The fields of `next` that differ from `base`, as a ConfigPatch (live knobs only). */
export function diffPatch(base: RunConfig, next: RunConfig, knobs: readonly Knob[] = KNOBS): ConfigPatch {
  let patch: ConfigPatch = {};
  for (const knob of knobs) {
    if (!knob.live) continue;
    const a = getPath(base, knob.path);
    const b = getPath(next, knob.path);
    if (a !== b) patch = setPath(patch, knob.path, b);
  }
  return patch;
}

/** Flatten a nested patch or override object to dotted paths. */
export function flatten(obj: unknown, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (obj == null || typeof obj !== "object" || Array.isArray(obj)) return prefix ? { [prefix]: obj } : out;
  for (const [key, value] of Object.entries(obj as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === "object" && !Array.isArray(value)) Object.assign(out, flatten(value, path));
    else out[path] = value;
  }
  return out;
}

/** "tx/s=20, poll=500" for a flat change set, a definition's knob by its name ("transactions_per_second=20"): the
 * label of a chart marker and of a change in the events. */
export function changeLabel(changes: Record<string, unknown>): string {
  return Object.entries(changes)
    .map(([path, value]) => `${KNOB_BY_PATH.get(path)?.short ?? path.replace(/^knobs\./, "")}=${formatValue(value)}`)
    .join(", ");
}

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
