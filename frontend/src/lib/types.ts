// TypeScript mirrors of the backend's pydantic models.
// Sources: backend/spanload/runs/config.py (RunConfig, ConfigPatch), runs/samples.py
// (Sample, Percentiles, Totals, Summary, Reconciliation, Op, Gauge), runs/state.py (RunState)
// and the API schemas in backend/spanload/api/ (RunPublic, RunsPublic, events, live messages).

// ---- runs/config.py -------------------------------------------------------------------------

export type TargetKind = "local" | "emulator" | "cloud";
export type SchemaKind = "singers" | "tweets" | "leaderboard";
export type UpdaterMode = "mutations" | "dml" | "batch_insert";
export type ShardFilter = "fixed" | "not_null" | "none";
export type ReaderQuery = "point" | "recent_changes" | "leaderboard";

export const TARGET_KINDS: readonly TargetKind[] = ["local", "emulator", "cloud"];
export const SCHEMA_KINDS: readonly SchemaKind[] = ["singers", "tweets", "leaderboard"];
export const UPDATER_MODES: readonly UpdaterMode[] = ["mutations", "dml", "batch_insert"];
export const SHARD_FILTERS: readonly ShardFilter[] = ["fixed", "not_null", "none"];
export const READER_QUERIES: readonly ReaderQuery[] = ["point", "recent_changes", "leaderboard"];

/** ShardId = MOD(FARM_FINGERPRINT(...), 19) takes the values -18..18. */
export const SHARD_COUNT = 37;

export interface Target {
  kind: TargetKind;
  emulator_host: string | null;
  project: string;
  instance: string;
  database: string;
}

export interface UpdaterConfig {
  enabled: boolean;
  transactions_per_second: number;
  mutations_per_transaction: number;
  parallelism: number;
  mode: UpdaterMode;
  batch_rows: number;
}

export interface WatcherConfig {
  enabled: boolean;
  watchers: number;
  poll_interval_ms: number;
  limit: number;
  table_hint: boolean;
  shard_filter: ShardFilter;
}

export interface ReaderConfig {
  enabled: boolean;
  reads_per_second: number;
  concurrency: number;
  think_time_ms: number;
  query: ReaderQuery;
  staleness_s: number;
}

export interface ClientConfig {
  multiplexed_sessions: boolean;
  session_pool_size: number;
}

export interface RunConfig {
  name: string | null;
  preset: string | null;
  target: Target;
  duration_s: number | null;
  schema: SchemaKind;
  processes: number;
  report_interval_s: number;
  updater: UpdaterConfig;
  watcher: WatcherConfig;
  reader: ReaderConfig;
  client: ClientConfig;
}

/** A live change: only the fields that are set change; target and schema cannot. */
export interface ConfigPatch {
  duration_s?: number;
  updater?: Partial<UpdaterConfig>;
  watcher?: Partial<WatcherConfig>;
  reader?: Partial<ReaderConfig>;
  client?: Partial<ClientConfig>;
}

// ---- runs/samples.py ------------------------------------------------------------------------

export const Op = {
  UPDATER_TXN: "updater.txn",
  UPDATER_TXN_INTENDED: "updater.txn_intended",
  WATCHER_POLL: "watcher.poll",
  WATCHER_NOTIFY: "watcher.notify",
  READER_READ: "reader.read",
  READER_READ_INTENDED: "reader.read_intended",
} as const;
export type Op = (typeof Op)[keyof typeof Op];

export const Gauge = {
  UPDATER_TARGET_TPS: "updater.target_tps",
  UPDATER_TPS: "updater.tps",
  UPDATER_MUTATIONS_PS: "updater.mutations_ps",
  UPDATER_BEHIND: "updater.behind",
  WATCHER_CHANGES_PS: "watcher.changes_ps",
  WATCHER_ROWS_PER_POLL: "watcher.rows_per_poll",
  WATCHER_POLLS_PS: "watcher.polls_ps",
  WATCHER_LAG_MS: "watcher.lag_ms",
  READER_TARGET_RPS: "reader.target_rps",
  READER_RPS: "reader.rps",
  SESSIONS_IN_USE: "sessions.in_use",
  SESSIONS_IDLE: "sessions.idle",
  SESSIONS_WAITING: "sessions.waiting",
  ERRORS_PS: "errors_ps",
  ABORTS_PS: "aborts_ps",
  SERVER_POLL_AVG_LATENCY_S: "server.poll_avg_latency_s",
  SERVER_POLL_CPU_FRACTION: "server.poll_cpu_fraction",
} as const;
export type Gauge = (typeof Gauge)[keyof typeof Gauge];

/** Latency percentiles in milliseconds, from a merged HdrHistogram. */
export interface Percentiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
  mean: number | null;
}

export interface Totals {
  transactions: number;
  mutations: number;
  received_changes: number;
  polls: number;
  reads: number;
  errors: number;
  aborts: number;
}

/** One report interval of a run, merged across every worker process. */
export interface Sample {
  seq: number;
  t: number;
  elapsed_s: number;
  interval_s: number;
  latency: Partial<Record<string, Percentiles>>;
  gauges: Partial<Record<string, number>>;
  errors_by_code?: Record<string, number>;
  totals?: Totals;
  hdr?: Record<string, string>;
  /** Per-worker breakdown, when the API provides it. */
  workers?: Record<string, { latency?: Partial<Record<string, Percentiles>>; gauges?: Partial<Record<string, number>> }>;
}

export interface Reconciliation {
  keys_written: number;
  final_versions_received: number;
  final_versions_missing: number;
  duplicates: number;
  superseded_unseen: number;
  ok: boolean;
}

export interface Summary {
  duration_s: number;
  latency: Partial<Record<string, Percentiles>>;
  rates: Partial<Record<string, number>>;
  totals: Totals;
  errors_by_code: Record<string, number>;
  reconciliation: Reconciliation | null;
  /** Percentiles per worker kind or process, when the API provides them. */
  workers?: Record<string, Partial<Record<string, Percentiles>>>;
}

// ---- runs/state.py --------------------------------------------------------------------------

export type RunState =
  | "pending"
  | "starting"
  | "running"
  | "paused"
  | "stopping"
  | "finished"
  | "failed"
  | "interrupted";

export const RUN_STATES: readonly RunState[] = [
  "pending",
  "starting",
  "running",
  "paused",
  "stopping",
  "finished",
  "failed",
  "interrupted",
];

export const ACTIVE_STATES: ReadonlySet<RunState> = new Set<RunState>([
  "pending",
  "starting",
  "running",
  "paused",
  "stopping",
]);

export function isActive(state: RunState | string | null | undefined): boolean {
  return state != null && ACTIVE_STATES.has(state as RunState);
}

// ---- api/ -----------------------------------------------------------------------------------

/** The API writes times as ISO datetimes or unix seconds. */
export type Timestamp = string | number;

/** One entry on a run's timeline: a live config change or a status change. */
export interface RunEvent {
  id?: number | string;
  kind: "config_change" | "status" | string;
  /** An ISO datetime (EventPublic.t) or unix seconds. */
  t?: Timestamp | null;
  elapsed_s?: number | null;
  who?: string | null;
  /** Flat {"updater.transactions_per_second": 20} for a config change, {status, reason} for a status. */
  changes?: Record<string, unknown> | null;
  patch?: ConfigPatch | null;
  status?: RunState | null;
  reason?: string | null;
  label?: string | null;
}

export interface RunPublic {
  id: string;
  name: string | null;
  preset: string | null;
  status: RunState;
  config: RunConfig;
  created_at: Timestamp | null;
  started_at: Timestamp | null;
  ended_at?: Timestamp | null;
  finished_at?: Timestamp | null;
  target_kind?: string;
  sample_count?: number;
  last_elapsed_s?: number;
  duration_s?: number | null;
  notes: string | null;
  tags: string[];
  failure_reason?: string | null;
  summary?: Summary | null;
  /** The newest sample's headline figures while a run is going, when the API provides them. */
  latest?: Sample | null;
  events?: RunEvent[];
}

export interface RunsPublic {
  data: RunPublic[];
  count: number;
}

export interface RunCreate {
  config?: Partial<RunConfig>;
  preset?: string;
  overrides?: Record<string, unknown>;
  name?: string;
}

export interface RunUpdate {
  name?: string | null;
  notes?: string | null;
  tags?: string[];
}

export interface Preset {
  name: string;
  description?: string | null;
  config: RunConfig;
}

export interface SamplesPublic {
  data: Sample[];
  count?: number;
}

export interface Health {
  status: string;
  [key: string]: unknown;
}

// ---- compare --------------------------------------------------------------------------------

export interface MetricDelta {
  value: number | null;
  delta: number | null;
  percent: number | null;
}

export interface CompareRunSummary {
  run_id: string;
  metrics: Record<string, MetricDelta>;
}

export interface ConfigDiffEntry {
  field: string;
  values: unknown[];
}

export interface CompareSeries {
  run_id: string;
  samples: Sample[];
}

export interface ComparePublic {
  runs: RunPublic[];
  config_diff: ConfigDiffEntry[];
  series: CompareSeries[];
  summaries: CompareRunSummary[];
}

// ---- WS /api/runs/{id}/live ------------------------------------------------------------------

export interface SnapshotMessage {
  type: "snapshot";
  run_id?: string;
  config: RunConfig;
  status: RunState;
  events: RunEvent[];
  samples: Sample[];
  summary?: Summary | null;
  run?: RunPublic;
}

export interface SampleMessage {
  type: "sample";
  sample: Sample;
}

export interface StatusMessage {
  type: "status";
  status: RunState;
  reason?: string | null;
  event: RunEvent;
}

export interface ConfigChangeMessage {
  type: "config_change";
  event: RunEvent;
  config?: RunConfig | null;
}

export interface SummaryMessage {
  type: "summary";
  summary: Summary;
}

/** Sent to a viewer that fell too far behind, just before the server closes its socket. */
export interface DroppedMessage {
  type: "dropped";
  reason: string;
  backlog: number;
}

export type LiveMessage =
  | SnapshotMessage
  | SampleMessage
  | StatusMessage
  | ConfigChangeMessage
  | SummaryMessage
  | DroppedMessage;
