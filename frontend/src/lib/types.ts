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
  /** keys the updater picks from (uniformly); fewer keys, more overwrites */
  key_space: number;
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
  SERVER_TXN_AVG_COMMIT_LATENCY_S: "server.txn_avg_commit_latency_s",
  SERVER_TXN_AVG_PARTICIPANTS: "server.txn_avg_participants",
  READER_BEHIND: "reader.behind",
  RETRIES_PS: "retries_ps",
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
}

/** End-of-run proof that the watchers missed and doubled nothing. */
export interface Reconciliation {
  keys_written: number;
  final_versions_received: number;
  final_versions_missing: number;
  duplicates: number;
  /** versions overwritten before any poll could see them */
  superseded_unseen: number;
  ok: boolean;
  /** committed versions of this run's writes, over every key */
  versions_written?: number;
  /** distinct versions the watchers received */
  versions_received?: number;
  /** received versions this run's updater never committed */
  unexpected?: number;
  /** keys left out: a commit of unknown outcome touched them */
  uncertain_keys?: number;
  /** changes by writers of other runs, not reconciled */
  foreign_changes?: number;
  detail?: string;
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

/** One entry on a run's timeline (runs/live.py EventPublic): a live config change or a status change. */
export interface RunEvent {
  /** store id; null on a live message not yet stored */
  id?: number | null;
  kind: "config_change" | "status";
  /** An ISO datetime (or unix seconds). */
  t: Timestamp;
  elapsed_s: number;
  who?: string | null;
  /** Flat {"updater.transactions_per_second": 20} for a config change, {status, reason} for a status. */
  changes: Record<string, unknown>;
}

/** The figures the runs table shows (api/schemas/runs.py Headline). */
export interface Headline {
  achieved_tps: number | null;
  updater_p99_ms: number | null;
  notify_p50_ms: number | null;
  reads_p99_ms: number | null;
}

export interface RunPublic {
  id: string;
  name: string;
  preset: string | null;
  target_kind: string;
  status: RunState;
  /** The config the run started with. */
  config: RunConfig;
  /** The config after every live change. */
  current_config: RunConfig;
  notes: string;
  tags: string[];
  created_at: Timestamp;
  started_at: Timestamp | null;
  ended_at: Timestamp | null;
  /** Seconds of samples recorded. */
  duration_s: number;
  failure_reason: string | null;
  sample_count: number;
  headline: Headline;
  summary: Summary | null;
}

export interface RunsPublic {
  data: RunPublic[];
  count: number;
}

/** Start a run from a whole config, or from a preset with overrides deep-merged onto it. */
export interface RunCreate {
  config?: RunConfig;
  preset?: string;
  overrides?: Record<string, unknown>;
  name?: string;
  notes?: string;
  tags?: string[];
}

export interface RunUpdate {
  name?: string | null;
  notes?: string | null;
  tags?: string[];
}

export interface Preset {
  name: string;
  description: string;
  config: RunConfig;
}

export interface SamplesPublic {
  data: Sample[];
  /** points returned */
  count: number;
  /** samples stored in the requested range */
  total: number;
  downsampled: boolean;
}

export interface Health {
  status: string;
  [key: string]: unknown;
}

// ---- compare (api/schemas/compare.py) -------------------------------------------------------

export interface ConfigDiffEntry {
  /** dotted path, e.g. updater.transactions_per_second */
  field: string;
  /** the value in each run, in the order of ids */
  values: unknown[];
}

export interface RunSeries {
  run_id: string;
  /** series name (latency.updater.txn.p99, gauges.updater.tps, ...) -> one value per elapsed_s point */
  values: Record<string, (number | null)[]>;
}

export interface CompareSeries {
  /** the shared time axis: seconds since each run started */
  elapsed_s: number[];
  runs: RunSeries[];
}

export interface MetricComparison {
  /** e.g. latency.updater.txn.p99, rates.updater.tps, totals.transactions */
  metric: string;
  better: "lower" | "higher" | null;
  values: (number | null)[];
  /** value minus the baseline's (the first run) */
  delta: (number | null)[];
  /** delta as a percentage of the baseline */
  percent_change: (number | null)[];
}

export interface ComparePublic {
  runs: RunPublic[];
  config_diff: ConfigDiffEntry[];
  series: CompareSeries;
  summaries: (Summary | null)[];
  metrics: MetricComparison[];
}

// ---- WS /api/runs/{id}/live ------------------------------------------------------------------

/** The first message on connect: the run as it is, its events, its samples so far (downsampled). */
export interface SnapshotMessage {
  type: "snapshot";
  run: RunPublic;
  events: RunEvent[];
  samples: Sample[];
  total_samples: number;
  downsampled: boolean;
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
