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

// ---- metric names: generated from backend/spanload/model (lib/api/names.gen.ts, `make types`) ----

export { Gauge, Op, OpMetric, opMetric } from "./api/names.gen";

export type Percentiles = Served<Schemas["Percentiles"]>;
export type Totals = Served<Schemas["Totals"]>;
export type Sample = Served<Schemas["Sample"]>;
export type Reconciliation = Served<Schemas["Reconciliation"]>;
export type Summary = Served<Schemas["Summary"]>;
export type WorkerCost = Served<Schemas["WorkerCost"]>;
/** A TPC-C run's figures: tpmC, the mix per type, consistency conditions 1-4. */
export type TpccSummary = Served<Schemas["TpccSummary"]>;
export type CapacityResult = Served<Schemas["CapacityResult"]>;
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

// ---- workload definitions --------------------------------------------------------------------

export type WorkloadDefinition = Schemas["WorkloadDefinition"];
export type DefinitionKnob = Schemas["Knob"];
export type DefinitionOperation = Schemas["Operation"];
export type WorkloadSummary = Served<Schemas["WorkloadSummary"]>;
export type WorkloadsPublic = Served<Schemas["WorkloadsPublic"]>;
export type WorkloadPublic = Schemas["WorkloadPublic"];
export type ValidationPublic = Served<Schemas["ValidationPublic"]>;
/** One operation of a definition executed once by the validate endpoint's dry run, step by step. */
export type DryRunResult = Served<Schemas["DryRunResult"]>;
export type DryRunStep = Served<Schemas["StepResult"]>;
