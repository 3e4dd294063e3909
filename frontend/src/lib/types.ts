// The backend's models as the UI sees them: aliases of the types generated from its OpenAPI
// schema (lib/api/schema.gen.ts, `make types`), plus the few names the schema cannot carry.
import type { components } from "./api/schema.gen";
import openapi from "./api/openapi.json";

type Schemas = components["schemas"];

/**
 * A model as the server sends it. Pydantic writes every field, but the schema lists fields with a
 * default factory as optional; a response therefore has every field, at every depth.
 */
export type Served<T> = T extends readonly (infer U)[] ? Served<U>[] : T extends object ? { [K in keyof T]-?: Served<T[K]> } : T;

// ---- config ----------------------------------------------------------------------------------

export type TargetKind = Schemas["TargetKind"];
export type Workload = Schemas["Workload"];
export type TpccMode = Schemas["TpccMode"];
export type UpdaterMode = Schemas["UpdaterMode"];
export type ShardFilter = Schemas["ShardFilter"];
export type ReaderQuery = Schemas["ReaderQuery"];
export type WorkerRuntime = Schemas["WorkerRuntime"];

export type Target = Served<Schemas["Target"]>;
export type UpdaterConfig = Served<Schemas["UpdaterConfig"]>;
export type WatcherConfig = Served<Schemas["WatcherConfig"]>;
export type ReaderConfig = Served<Schemas["ReaderConfig"]>;
export type ClientConfig = Served<Schemas["ClientConfig"]>;
export type TpccConfig = Served<Schemas["TpccConfig"]>;
export type RunConfig = Served<Schemas["RunConfig"]>;

/** A live change: only the fields that are set change; target and workload cannot. */
export type ConfigPatch = Schemas["ConfigPatch"];

// ---- runs/samples.py ------------------------------------------------------------------------

export const Op = {
  UPDATER_TXN: "updater.txn",
  UPDATER_TXN_INTENDED: "updater.txn_intended",
  WATCHER_POLL: "watcher.poll",
  WATCHER_NOTIFY: "watcher.notify",
  READER_READ: "reader.read",
  READER_READ_INTENDED: "reader.read_intended",
  UPDATER_TXN_FAILED: "updater.txn.failed",
  READER_READ_FAILED: "reader.read.failed",
  WATCHER_POLL_FAILED: "watcher.poll.failed",
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
  SERVER_COMMIT_PARTICIPANTS: "server.commit_participants",
  SERVER_COMMIT_LATENCY_S: "server.commit_latency_s",
  SERVER_CPU_FRACTION: "server.cpu_fraction",
  SERVER_CPU_PER_COMMIT_MS: "server.cpu_per_commit_ms",
  SERVER_SPLITS: "server.splits",
  READER_BEHIND: "reader.behind",
  RETRIES_PS: "retries_ps",
  REPORT_LAG_MS: "worker.report_lag_ms",
  WORKERS_STALLED: "workers.stalled",
} as const;
export type Gauge = (typeof Gauge)[keyof typeof Gauge];

export type Percentiles = Served<Schemas["Percentiles"]>;
export type Totals = Served<Schemas["Totals"]>;
export type Sample = Served<Schemas["Sample"]>;
export type Reconciliation = Served<Schemas["Reconciliation"]>;
export type Summary = Served<Schemas["Summary"]>;
export type WorkerCost = Served<Schemas["WorkerCost"]>;
/** A TPC-C run's figures: tpmC, the mix per type, consistency conditions 1-4. */
export type TpccSummary = Served<Schemas["TpccSummary"]>;
/** Where an operation kind's time went: mean parts per operation that add up to its round trip. */
export type Breakdown = Served<Schemas["Breakdown"]>;
export type BreakdownPart = Served<Schemas["BreakdownPart"]>;
export type Part = Schemas["Part"];
export type PartSource = Schemas["Source"];

// ---- run state -------------------------------------------------------------------------------

export type RunState = Schemas["RunState"];

export const RUN_STATES: readonly RunState[] = openapi.components.schemas.RunState.enum as RunState[];

export const ACTIVE_STATES: ReadonlySet<RunState> = new Set<RunState>([
  "pending",
  "starting",
  "preloading",
  "running",
  "paused",
  "stopping",
]);

export function isActive(state: RunState | string | null | undefined): boolean {
  return state != null && ACTIVE_STATES.has(state as RunState);
}

// ---- REST ------------------------------------------------------------------------------------

/** One entry on a run's timeline: a live config change, a status change, or its target going down or back up. */
export type RunEvent = Served<Schemas["EventPublic"]>;
export type Headline = Served<Schemas["Headline"]>;
export type RunPublic = Served<Schemas["RunPublic"]>;
/** A config field a run changed while it ran: at start, at end, and each change's time. */
export type LiveChange = Served<Schemas["LiveChange"]>;
export type RunsPublic = Served<Schemas["RunsPublic"]>;
/** Start a run from a whole config, or from a preset with overrides deep-merged onto it. */
export type RunCreate = Schemas["RunCreate"];
export type RunUpdate = Schemas["RunUpdate"];
export type Preset = Served<Schemas["PresetPublic"]>;
export type SamplesPublic = Served<Schemas["SamplesPublic"]>;
export type Health = Served<Schemas["HealthPublic"]>;
export type ConfigDiffEntry = Served<Schemas["ConfigDiffEntry"]>;
export type RunSeries = Served<Schemas["RunSeries"]>;
export type CompareSeries = Served<Schemas["CompareSeries"]>;
export type MetricComparison = Served<Schemas["MetricComparison"]>;
export type ComparePublic = Served<Schemas["ComparePublic"]>;

// ---- WS /api/runs/{id}/live ------------------------------------------------------------------

export type SnapshotMessage = Served<Schemas["SnapshotMessage"]>;
export type SampleMessage = Served<Schemas["SampleMessage"]>;
export type StatusMessage = Served<Schemas["StatusMessage"]>;
/** The schema types `config` as a plain dict; it is the run's whole config after the change. */
export type ConfigChangeMessage = Omit<Served<Schemas["ConfigChangeMessage"]>, "config"> & { config: RunConfig | null };
export type SummaryMessage = Served<Schemas["SummaryMessage"]>;
/** Another point on the run's timeline: its target went down or came back, a worker stalled or recovered. */
export type EventMessage = Served<Schemas["EventMessage"]>;
/** Sent to a viewer that fell too far behind, just before the server closes its socket. */
export type DroppedMessage = Served<Schemas["DroppedMessage"]>;
/** Progress of the load phase (state `preloading`), about twice a second. */
export type PreloadStatus = Served<Schemas["PreloadStatus"]>;
export type PreloadMessage = Served<Schemas["PreloadMessage"]>;

export type LiveMessage =
  | SnapshotMessage
  | SampleMessage
  | StatusMessage
  | ConfigChangeMessage
  | EventMessage
  | PreloadMessage
  | SummaryMessage
  | DroppedMessage;
