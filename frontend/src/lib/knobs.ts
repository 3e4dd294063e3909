// Every knob of a run config: where it appears, its label and unit, written here; its help (the
// field's description), type, range, options, whether it may be empty and whether it is live, read
// from the backend's OpenAPI schema (lib/api/openapi.json, `make types`). The forms check each field
// against its own bounds as it is typed; rules that tie fields together are the backend's alone,
// and its 422 names the field at fault (`field`), where the form places the answer.
import openapi from "./api/openapi.json";
import type { ConfigPatch, RunConfig } from "./types";

export type KnobKind = "float" | "int" | "bool" | "enum" | "text";

/** What the UI adds to a config field: words, and where it appears. */
interface KnobSpec {
  /** Dotted path in RunConfig, e.g. "updater.transactions_per_second". */
  path: string;
  section: "run" | "target" | "tpcc" | "updater" | "watcher" | "reader" | "client";
  label: string;
  /** A few characters for chart markers. */
  short: string;
  unit?: string;
  /** Shown in the live control panel. */
  control?: boolean;
  /** Slider range for the control panel (the numeric input still takes the full range); max defaults to the bound. */
  slider?: { min: number; max?: number; step: number };
}

export interface Knob extends Omit<KnobSpec, "slider"> {
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
}

const SCHEMAS = openapi.components.schemas as unknown as Record<string, JsonSchema>;

function deref(schema: JsonSchema): JsonSchema {
  const name = schema.$ref?.split("/").pop();
  const target = name === undefined ? schema : SCHEMAS[name];
  if (!target) throw new Error(`the OpenAPI schema has no ${String(schema.$ref)}`);
  return target;
}

interface Field {
  schema: JsonSchema;
  nullable: boolean;
  /** The property's own description, else its model's. */
  description?: string;
}

/** The schema of a field, with `null` taken out of an anyOf (then `nullable`). */
function unwrap(schema: JsonSchema): Field {
  const branches = schema.anyOf ?? [schema];
  const nonNull = branches.filter((b) => b.type !== "null");
  const only = nonNull.length === 1 ? nonNull[0] : undefined;
  const target = deref(only ?? schema);
  return { schema: target, nullable: branches.length !== nonNull.length, description: schema.description ?? target.description };
}

/** The schema of a dotted path under a model, e.g. ("RunConfig", "watcher.limit"), or undefined. */
export function fieldSchema(model: string, path: string): Field | undefined {
  let current: Field | undefined = { schema: SCHEMAS[model] ?? {}, nullable: false };
  for (const part of path.split(".")) {
    const prop: JsonSchema | undefined = current?.schema.properties?.[part];
    current = prop ? unwrap(prop) : undefined;
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

/** A knob from its field's schema (`model`'s field at `field`, else `spec.path` in RunConfig). */
function fromSchema(spec: KnobSpec, model = "RunConfig", field = spec.path, live?: boolean): Knob {
  const found = fieldSchema(model, field);
  if (!found) throw new Error(`knob ${field} is not a ${model} field in the OpenAPI schema`);
  const { schema, nullable, description } = found;
  const kind = kindOf(schema);
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = kind === "text" ? schema.maxLength : schema.maximum;
  const knob: Knob = {
    ...spec,
    help: sentence(description ?? ""),
    kind,
    live: live ?? fieldSchema("ConfigPatch", spec.path) !== undefined,
    optional: nullable,
    slider: spec.slider && { min: spec.slider.min, max: spec.slider.max ?? max ?? spec.slider.min, step: spec.slider.step },
  };
  if (min !== undefined) knob.min = min;
  if (schema.exclusiveMinimum !== undefined && schema.minimum === undefined) knob.minExclusive = true;
  if (max !== undefined) knob.max = max;
  if (schema.enum) knob.options = schema.enum;
  return knob;
}

/** A definition operation's pacing field (`operations.<op>.rate`...) as a live knob: its bounds and
 * help from the backend's OperationPacing. */
export function pacingKnob(operation: string, field: "rate" | "concurrency", unit: string, slider: { min: number; max: number; step: number }): Knob {
  const knob = fromSchema({ path: `operations.${operation}.${field}`, section: "run", label: `${operation}: ${field}`, short: `${operation} ${field}`, unit, slider }, "OperationPacing", field, true);
  return { ...knob, optional: false };
}

/** A model's defaults from the schema: a field's default, null for an optional field (an optional
 * section too: `placement: null` leaves the choice to the server), or a nested model's defaults. */
function defaultsOf(model: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(model.properties ?? {})) {
    const { schema, nullable } = unwrap(prop);
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

const KNOB_SPECS: readonly KnobSpec[] = [
  { path: "name", section: "run", label: "Name", short: "name" },
  { path: "duration_s", section: "run", label: "Duration", short: "duration", unit: "s" },
  { path: "workload", section: "run", label: "Workload", short: "workload" },
  { path: "processes", section: "run", label: "Worker processes", short: "procs", unit: "processes" },
  { path: "runtime", section: "run", label: "Worker runtime", short: "runtime" },
  { path: "preload.rows", section: "run", label: "Preload rows", short: "preload", unit: "rows" },
  { path: "report_interval_s", section: "run", label: "Report interval", short: "interval", unit: "s" },

  { path: "target.kind", section: "target", label: "Target", short: "target" },
  { path: "target.emulator_host", section: "target", label: "Emulator host", short: "host", unit: "host:port" },
  { path: "target.project", section: "target", label: "Project", short: "project" },
  { path: "target.instance", section: "target", label: "Instance", short: "instance" },
  { path: "target.database", section: "target", label: "Database", short: "database" },

  { path: "tpcc.warehouses", section: "tpcc", label: "Warehouses", short: "W", unit: "warehouses" },
  { path: "tpcc.mode", section: "tpcc", label: "Pacing", short: "pacing" },
  { path: "tpcc.terminals", section: "tpcc", label: "Terminals", short: "terms", unit: "terminals", control: true, slider: { min: 1, max: 128, step: 1 } },
  { path: "tpcc.transactions_per_second", section: "tpcc", label: "Transaction rate", short: "tx/s", unit: "tx/s", control: true, slider: { min: 1, max: 1000, step: 1 } },
  { path: "tpcc.keying_think_times", section: "tpcc", label: "Keying and think times", short: "think", control: true },
  { path: "tpcc.items", section: "tpcc", label: "Items", short: "items", unit: "items" },
  { path: "tpcc.customers_per_district", section: "tpcc", label: "Customers per district", short: "cust", unit: "customers" },

  { path: "updater.enabled", section: "updater", label: "Updater on", short: "updater" },
  { path: "updater.transactions_per_second", section: "updater", label: "Write rate", short: "tx/s", unit: "tx/s", control: true, slider: { min: 0.5, max: 500, step: 0.5 } },
  { path: "updater.mutations_per_transaction", section: "updater", label: "Mutations per tx", short: "mut/tx", unit: "mutations", control: true, slider: { min: 1, max: 500, step: 1 } },
  { path: "updater.parallelism", section: "updater", label: "Updater parallelism", short: "par", unit: "threads" },
  { path: "updater.mode", section: "updater", label: "Write mode", short: "mode" },
  { path: "updater.batch_rows", section: "updater", label: "Rows per batch", short: "rows", unit: "rows" },

  { path: "updater.key_space", section: "updater", label: "Key space", short: "keys", unit: "keys" },

  { path: "watcher.enabled", section: "watcher", label: "Watchers on", short: "watchers on" },
  { path: "watcher.watchers", section: "watcher", label: "Watchers", short: "watchers", unit: "watchers", control: true, slider: { min: 1, step: 1 } },
  { path: "watcher.poll_interval_ms", section: "watcher", label: "Poll interval", short: "poll", unit: "ms", control: true, slider: { min: 10, max: 10_000, step: 10 } },
  { path: "watcher.limit", section: "watcher", label: "Row limit", short: "limit", unit: "rows", control: true, slider: { min: 1, max: 100_000, step: 1 } },
  { path: "watcher.table_hint", section: "watcher", label: "FORCE_INDEX hint", short: "hint", control: true },
  { path: "watcher.shard_filter", section: "watcher", label: "Shard filter", short: "filter", control: true },

  { path: "reader.enabled", section: "reader", label: "Readers on", short: "readers on" },
  { path: "reader.reads_per_second", section: "reader", label: "Read rate", short: "reads/s", unit: "reads/s", control: true, slider: { min: 1, max: 1000, step: 1 } },
  { path: "reader.concurrency", section: "reader", label: "Reader concurrency", short: "conc", unit: "readers", control: true, slider: { min: 1, max: 128, step: 1 } },
  { path: "reader.think_time_ms", section: "reader", label: "Think time", short: "think", unit: "ms", control: true, slider: { min: 0, max: 5000, step: 10 } },
  { path: "reader.query", section: "reader", label: "Read query", short: "query" },
  { path: "reader.staleness_s", section: "reader", label: "Staleness", short: "stale", unit: "s" },

  { path: "client.interface", section: "client", label: "Interface", short: "interface" },
  { path: "client.pgadapter_host", section: "client", label: "PGAdapter host", short: "pgadapter", unit: "host:port" },
  { path: "client.multiplexed_sessions", section: "client", label: "Multiplexed sessions", short: "mux" },
  { path: "client.session_pool_size", section: "client", label: "Session pool size", short: "pool", unit: "sessions" },
  { path: "client.timeout_ms", section: "client", label: "Operation timeout", short: "timeout", unit: "ms", control: true, slider: { min: 100, max: 30_000, step: 100 } },
];
export const KNOBS: readonly Knob[] = KNOB_SPECS.map((spec) => fromSchema(spec));

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
  if (section === "updater" || section === "watcher" || section === "reader") return workload !== "tpcc";
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

/** "tx/s=20, poll=500" for a flat change set: the label of a chart marker. */
export function changeLabel(changes: Record<string, unknown>): string {
  return Object.entries(changes)
    .map(([path, value]) => `${KNOB_BY_PATH.get(path)?.short ?? path}=${formatValue(value)}`)
    .join(", ");
}

/** Units that count things, as one of them: "1 process", "1 watcher" (not "1 processes"). */
const SINGULAR_UNITS: Readonly<Record<string, string>> = {
  customers: "customer",
  items: "item",
  keys: "key",
  mutations: "mutation",
  processes: "process",
  readers: "reader",
  rows: "row",
  sessions: "session",
  terminals: "terminal",
  threads: "thread",
  warehouses: "warehouse",
  watchers: "watcher",
};

/** The knob's unit as it reads after this value: singular after exactly 1. */
export function unitFor(knob: Pick<Knob, "unit">, value: unknown): string {
  if (!knob.unit) return "";
  return Number(value) === 1 ? (SINGULAR_UNITS[knob.unit] ?? knob.unit) : knob.unit;
}

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
