// Every knob of a run config, with its unit, range and one line of help, mirroring the
// constraints in backend/spanload/runs/config.py; and the validation the forms run before submit.
import {
  READER_QUERIES,
  type RunConfig,
  SCHEMA_KINDS,
  SHARD_COUNT,
  SHARD_FILTERS,
  TARGET_KINDS,
  UPDATER_MODES,
  type ConfigPatch,
} from "./types";

export type KnobKind = "float" | "int" | "bool" | "enum" | "text";

export interface Knob {
  /** Dotted path in RunConfig, e.g. "updater.transactions_per_second". */
  path: string;
  section: "run" | "target" | "updater" | "watcher" | "reader" | "client";
  label: string;
  /** A few characters for chart markers. */
  short: string;
  kind: KnobKind;
  unit?: string;
  help: string;
  min?: number;
  /** True when min itself is not allowed (pydantic gt). */
  minExclusive?: boolean;
  max?: number;
  options?: readonly string[];
  /** Editable while the run is going (ConfigPatch has it). */
  live?: boolean;
  /** Shown in the live control panel. */
  control?: boolean;
  /** Slider range for the control panel (the numeric input still takes the full range). */
  slider?: { min: number; max: number; step: number };
  optional?: boolean;
}

export const KNOBS: readonly Knob[] = [
  { path: "name", section: "run", label: "Name", short: "name", kind: "text", help: "A name to find the run by later (optional).", optional: true, max: 200 },
  { path: "duration_s", section: "run", label: "Duration", short: "duration", kind: "float", unit: "s", help: "How long the run lasts; empty runs until stopped.", min: 0, minExclusive: true, max: 7 * 24 * 3600, optional: true, live: true },
  { path: "schema", section: "run", label: "Schema", short: "schema", kind: "enum", options: SCHEMA_KINDS, help: "singers: the Change Watcher table; tweets: the write benchmark; leaderboard: Players / Scores." },
  { path: "processes", section: "run", label: "Worker processes", short: "procs", kind: "int", unit: "processes", help: "One Python client process saturates one core at ~1,100 commits/s.", min: 1, max: 64 },
  { path: "report_interval_s", section: "run", label: "Report interval", short: "interval", kind: "float", unit: "s", help: "How often workers report; one sample per interval.", min: 0.1, max: 60 },

  { path: "target.kind", section: "target", label: "Target", short: "target", kind: "enum", options: TARGET_KINDS, help: "local: the built-in Spanner server; emulator: the official emulator; cloud: real Cloud Spanner (ADC)." },
  { path: "target.emulator_host", section: "target", label: "Emulator host", short: "host", kind: "text", unit: "host:port", help: "Where the emulator or local server listens; required for the emulator.", optional: true },
  { path: "target.project", section: "target", label: "Project", short: "project", kind: "text", help: "Google Cloud project id." },
  { path: "target.instance", section: "target", label: "Instance", short: "instance", kind: "text", help: "Spanner instance id." },
  { path: "target.database", section: "target", label: "Database", short: "database", kind: "text", help: "Database id; tables and indexes are created if missing." },

  { path: "updater.enabled", section: "updater", label: "Updater on", short: "updater", kind: "bool", help: "Run the updater, which writes at the target rate.", live: true },
  { path: "updater.transactions_per_second", section: "updater", label: "Write rate", short: "tx/s", kind: "float", unit: "tx/s", help: "Target transactions per second, paced as Poisson arrivals (open loop).", min: 0, minExclusive: true, max: 100_000, live: true, control: true, slider: { min: 0.5, max: 500, step: 0.5 } },
  { path: "updater.mutations_per_transaction", section: "updater", label: "Mutations per tx", short: "mut/tx", kind: "int", unit: "mutations", help: "Mean mutations per transaction m; each transaction writes uniform 1..2m.", min: 1, max: 10_000, live: true, control: true, slider: { min: 1, max: 500, step: 1 } },
  { path: "updater.parallelism", section: "updater", label: "Updater parallelism", short: "par", kind: "int", unit: "threads", help: "Transactions in flight at once per process.", min: 1, max: 512, live: true },
  { path: "updater.mode", section: "updater", label: "Write mode", short: "mode", kind: "enum", options: UPDATER_MODES, help: "mutations: single-use commits; dml: read-write transactions with DML; batch_insert: batches of inserts.", live: true },
  { path: "updater.batch_rows", section: "updater", label: "Rows per batch", short: "rows", kind: "int", unit: "rows", help: "Inserts per commit in batch_insert mode (the 2PC report used 6).", min: 1, max: 1000, live: true },

  { path: "updater.key_space", section: "updater", label: "Key space", short: "keys", kind: "int", unit: "keys", help: "Keys the updater picks from uniformly; fewer keys, more overwrites.", min: 1, max: 1_000_000_000, live: true },

  { path: "watcher.enabled", section: "watcher", label: "Watchers on", short: "watchers on", kind: "bool", help: "Run the change watchers, which poll by commit timestamp.", live: true },
  { path: "watcher.watchers", section: "watcher", label: "Watchers", short: "watchers", kind: "int", unit: "watchers", help: `Watchers splitting the fixed shard list (1..${SHARD_COUNT}).`, min: 1, max: SHARD_COUNT, live: true, control: true, slider: { min: 1, max: SHARD_COUNT, step: 1 } },
  { path: "watcher.poll_interval_ms", section: "watcher", label: "Poll interval", short: "poll", kind: "int", unit: "ms", help: "Time between two polls of one watcher.", min: 10, max: 3_600_000, live: true, control: true, slider: { min: 10, max: 10_000, step: 10 } },
  { path: "watcher.limit", section: "watcher", label: "Row limit", short: "limit", kind: "int", unit: "rows", help: "LIMIT of the poll query.", min: 1, max: 1_000_000, live: true, control: true, slider: { min: 1, max: 100_000, step: 1 } },
  { path: "watcher.table_hint", section: "watcher", label: "FORCE_INDEX hint", short: "hint", kind: "bool", help: "Force the (ShardId, LastUpdated) index with a table hint.", live: true, control: true },
  { path: "watcher.shard_filter", section: "watcher", label: "Shard filter", short: "filter", kind: "enum", options: SHARD_FILTERS, help: "fixed: ShardId IN (-18..18); not_null / none need exactly 1 watcher.", live: true, control: true },

  { path: "reader.enabled", section: "reader", label: "Readers on", short: "readers on", kind: "bool", help: "Run reader workers competing with the writes.", live: true },
  { path: "reader.reads_per_second", section: "reader", label: "Read rate", short: "reads/s", kind: "float", unit: "reads/s", help: "Target reads per second across all readers.", min: 0, minExclusive: true, max: 100_000, live: true, control: true, slider: { min: 1, max: 1000, step: 1 } },
  { path: "reader.concurrency", section: "reader", label: "Reader concurrency", short: "conc", kind: "int", unit: "readers", help: "Reads in flight at once per process.", min: 1, max: 512, live: true, control: true, slider: { min: 1, max: 128, step: 1 } },
  { path: "reader.think_time_ms", section: "reader", label: "Think time", short: "think", kind: "int", unit: "ms", help: "Pause of each reader between two reads.", min: 0, max: 600_000, live: true, control: true, slider: { min: 0, max: 5000, step: 10 } },
  { path: "reader.query", section: "reader", label: "Read query", short: "query", kind: "enum", options: READER_QUERIES, help: "point: read one row by key; recent_changes: newest rows; leaderboard: a join.", live: true },
  { path: "reader.staleness_s", section: "reader", label: "Staleness", short: "stale", kind: "float", unit: "s", help: "Exact staleness of reads; 0 reads strongly.", min: 0, max: 3600, live: true },

  { path: "client.multiplexed_sessions", section: "client", label: "Multiplexed sessions", short: "mux", kind: "bool", help: "Off: the pool sends GetSession before each operation (throughput roughly halves).", live: true },
  { path: "client.session_pool_size", section: "client", label: "Session pool size", short: "pool", kind: "int", unit: "sessions", help: "Sessions in the client's pool; too few and clients wait for one.", min: 1, max: 10_000, live: true },
];

export const KNOB_BY_PATH: ReadonlyMap<string, Knob> = new Map(KNOBS.map((k) => [k.path, k]));

export const SECTION_TITLES: Record<Knob["section"], string> = {
  run: "Run",
  target: "Target",
  updater: "Updater (writes)",
  watcher: "Change watchers",
  reader: "Readers",
  client: "Client library",
};

/** The backend's RunConfig defaults. */
export const DEFAULT_CONFIG: RunConfig = {
  name: null,
  preset: null,
  target: { kind: "local", emulator_host: null, project: "spanload", instance: "spanload", database: "spanload" },
  duration_s: null,
  schema: "singers",
  processes: 1,
  report_interval_s: 1,
  updater: { enabled: true, transactions_per_second: 1, mutations_per_transaction: 5, parallelism: 8, mode: "mutations", batch_rows: 6, key_space: 100_000 },
  watcher: { enabled: true, watchers: 1, poll_interval_ms: 1000, limit: 10_000, table_hint: true, shard_filter: "fixed" },
  reader: { enabled: false, reads_per_second: 10, concurrency: 4, think_time_ms: 0, query: "point", staleness_s: 0 },
  client: { multiplexed_sessions: true, session_pool_size: 100 },
};

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
      const unit = knob.unit ? ` ${knob.unit}` : "";
      if (knob.min !== undefined && (knob.minExclusive ? n <= knob.min : n < knob.min)) {
        return `${knob.label} must be ${knob.minExclusive ? "more than" : "at least"} ${knob.min}${unit}.`;
      }
      if (knob.max !== undefined && n > knob.max) return `${knob.label} must be at most ${knob.max.toLocaleString("en-US")}${unit}.`;
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

/** Validate a whole config: every knob, then the rules that tie fields together. */
export function validateConfig(config: RunConfig, knobs: readonly Knob[] = KNOBS): FieldErrors {
  const errors: FieldErrors = {};
  for (const knob of knobs) {
    const message = validateKnob(knob, getPath(config, knob.path));
    if (message) errors[knob.path] = message;
  }
  if (config.watcher.shard_filter !== "fixed" && config.watcher.watchers !== 1 && !errors["watcher.watchers"]) {
    errors["watcher.shard_filter"] = `Shard filter '${config.watcher.shard_filter}' needs exactly 1 watcher (got ${config.watcher.watchers}): only a fixed shard list can be split between watchers.`;
  }
  if (config.reader.query === "leaderboard" && config.schema !== "leaderboard") {
    errors["reader.query"] = `Read query 'leaderboard' needs schema 'leaderboard' (got '${config.schema}').`;
  }
  if (!errors["updater.key_space"] && !errors["processes"] && config.updater.key_space < config.processes) {
    errors["updater.key_space"] = `Key space (${config.updater.key_space}) must be at least the number of worker processes (${config.processes}).`;
  }
  if (config.target.kind === "emulator" && !config.target.emulator_host) {
    errors["target.emulator_host"] = "Emulator host is required when the target is the emulator.";
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

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
