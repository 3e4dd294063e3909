"""The configuration of a run: one pydantic model, and the patch that changes it live.

Every knob except ``target``, ``workload``, ``processes`` and ``runtime`` (and TPC-C's data shape) may be
changed while a run is going. Invalid combinations are rejected with a message that names the field.

``workload`` was called ``schema`` (``singers``, ``tweets``, ``leaderboard``) before TPC-C came: configs
and saved runs that say ``schema`` still load, as the workload that schema belongs to; a config is
always written back with ``workload`` only.
"""

from __future__ import annotations

import secrets
from enum import StrEnum
from types import UnionType
from typing import Annotated, Any, ClassVar, Self, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from spanload.model.builtin_knobs import LEGACY_KNOBS, LEGACY_SECTIONS, legacy_field, translate
from spanload.model.capacity import CapacityConfig
from spanload.model.definition_origin import DefinitionOrigin, OriginKind
from spanload.model.errors import RunInvalid
from spanload.model.field_words import words
from spanload.model.fixed_fields import refuse_fixed
from spanload.model.pacing import OperationPacing, check_overrides, resolve
from spanload.model.profile import Profile, check_target, field_of, is_closed_loop, patch_for
from spanload.model.workload import Dialect, KnobValue, WatchMode, WorkloadDefinition

DEFAULT_DATABASE = "spanload"
SHARD_COUNT = 37  # ShardId = MOD(FARM_FINGERPRINT(...), 19) takes the values -18..18


class TargetKind(StrEnum):
    LOCAL = "local"
    EMULATOR = "emulator"
    CLOUD = "cloud"


class SchemaKind(StrEnum):
    SINGERS = "singers"  # the Change Watcher table
    TWEETS = "tweets"  # the write benchmark
    LEADERBOARD = "leaderboard"  # Players / Scores
    USERTABLE = "usertable"  # YCSB's table, no secondary index (the 2PC-participants lab)


class LatencyModel(StrEnum):
    """What the local Spanner adds to a commit (a database option it keeps; local targets only)."""

    NONE = "none"
    PRODUCTION_LIKE = "production_like"  # a commit takes >= 3 ms, >= 6 ms with 2PC; 1 ms CPU a participant


class Workload(StrEnum):
    """What a run does: one of the field reports' workloads (each with its schema), or TPC-C."""

    CHANGE_WATCHER = "change_watcher"  # updater + watchers on the Singers table
    WRITE_BENCHMARK = "write_benchmark"  # the Tweet table
    SESSION_POOL = "session_pool"  # Players / Scores, the join-query readers
    TPCC = "tpcc"  # the nine TPC-C tables and its five transactions (workers/tpcc)
    PARTICIPANTS = "participants"  # batch inserts into UserTable, no secondary index (the 2PC report's lab)
    DEFINITION = "definition"  # a workload definition (config.definition), run by the interpreters


# The schema of each non-TPC-C workload; the old ``schema`` field's values map back through it.
WORKLOAD_SCHEMAS: dict[Workload, SchemaKind] = {
    Workload.CHANGE_WATCHER: SchemaKind.SINGERS,
    Workload.WRITE_BENCHMARK: SchemaKind.TWEETS,
    Workload.SESSION_POOL: SchemaKind.LEADERBOARD,
    Workload.PARTICIPANTS: SchemaKind.USERTABLE,
}
SCHEMA_WORKLOADS: dict[str, Workload] = {schema.value: workload for workload, schema in WORKLOAD_SCHEMAS.items()}


def legacy_schema(data: Any) -> Any:
    """A config dict that says ``schema: singers|tweets|leaderboard`` (the field's old name and
    values) turned into its ``workload``; anything else unchanged. Raises ValueError naming the
    accepted values, or a ``workload`` given beside it that disagrees."""
    if not isinstance(data, dict) or "schema" not in data:
        return data
    out = dict(data)
    old = out.pop("schema")
    value = getattr(old, "value", old)
    if not isinstance(value, str) or value not in SCHEMA_WORKLOADS:
        raise ValueError(
            f"schema {value!r} is not one of {', '.join(map(repr, SCHEMA_WORKLOADS))} "
            f"(schema is the old name of workload: {', '.join(w.value for w in Workload)})"
        )
    workload = SCHEMA_WORKLOADS[value]
    given = out.get("workload")
    if given is not None and getattr(given, "value", given) != workload.value:
        raise ValueError(f"schema {value!r} means workload {workload.value!r}, but workload is {given!r}")
    out["workload"] = workload
    return out


class TpccMode(StrEnum):
    OPEN = "open"  # Poisson arrivals at tpcc.transactions_per_second, up to tpcc.terminals in flight
    CLOSED = "closed"  # tpcc.terminals terminals, each running its next transaction when the last ends


class UpdaterMode(StrEnum):
    MUTATIONS = "mutations"
    DML = "dml"
    BATCH_INSERT = "batch_insert"


class ShardFilter(StrEnum):
    FIXED = "fixed"
    NOT_NULL = "not_null"
    NONE = "none"


class ReaderQuery(StrEnum):
    POINT = "point"
    RECENT_CHANGES = "recent_changes"
    LEADERBOARD = "leaderboard"


class ClientInterface(StrEnum):
    """How the workers speak to Spanner (the PostgreSQL-interface report's setups)."""

    GOOGLESQL = "googlesql"  # the official client on a GoogleSQL database
    POSTGRESQL = "postgresql"  # the official client on a PostgreSQL-dialect database
    PGADAPTER = "pgadapter"  # a PostgreSQL driver (psycopg, pgx) through PGAdapter, on a PostgreSQL database


# The dialect of the database each interface speaks to.
PG_INTERFACES = frozenset({ClientInterface.POSTGRESQL, ClientInterface.PGADAPTER})
# A PostgreSQL interface's database beside a GoogleSQL one: its name and this suffix (model/pg_twin.py)
PG_DATABASE_SUFFIX = "-pg"
PG_DATABASE = DEFAULT_DATABASE + PG_DATABASE_SUFFIX  # the PostgreSQL interfaces' default database (spanload-pg)


class WorkerRuntime(StrEnum):
    """The program a run's workers are: the same protocol, the same workloads, another client library."""

    PYTHON = "python"  # python -m spanload.workers.process, google-cloud-spanner
    GO = "go"  # spanload-worker-go (goworker/), cloud.google.com/go/spanner


# The bounds of every knob, written once: the config and its patch use these, the OpenAPI schema
# carries them (minimum/maximum) to the UI, and the command line's flags are generated from them.
Rate = Annotated[float, Field(gt=0, le=100_000)]
Mutations = Annotated[int, Field(ge=1, le=10_000)]
InFlight = Annotated[int, Field(ge=1, le=512)]
BatchRows = Annotated[int, Field(ge=1, le=1000)]
KeySpace = Annotated[int, Field(ge=1, le=1_000_000_000)]
Watchers = Annotated[int, Field(ge=1, le=SHARD_COUNT)]
PollIntervalMs = Annotated[int, Field(ge=10, le=3_600_000)]
RowLimit = Annotated[int, Field(ge=1, le=1_000_000)]
ThinkTimeMs = Annotated[int, Field(ge=0, le=600_000)]
StalenessS = Annotated[float, Field(ge=0, le=3600)]
PoolSize = Annotated[int, Field(ge=1, le=10_000)]
TimeoutMs = Annotated[int, Field(ge=50, le=600_000)]
DurationS = Annotated[float, Field(gt=0, le=7 * 24 * 3600)]
Processes = Annotated[int, Field(ge=1, le=64)]
ReportIntervalS = Annotated[float, Field(ge=0.1, le=60)]
WarmupS = Annotated[float, Field(ge=0, le=3600)]
RunName = Annotated[str, Field(max_length=200)]


def _abort_rule(text: str) -> str:
    from spanload.model.conditions import parse_abort  # conditions -> samples -> tpcc -> this module

    parse_abort(text)
    return text


AbortOn = Annotated[str, Field(max_length=300), AfterValidator(_abort_rule)]
MAX_ABORT_RULES = 20
Seed = Annotated[int, Field(ge=0, le=2**63 - 1)]
RayAddress = Annotated[
    str, Field(pattern=r"^(auto|(ray://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):[0-9]{1,5})$", max_length=300)
]
CpusPerWorker = Annotated[float, Field(gt=0, le=256)]
PreloadRows = Annotated[int, Field(ge=0, le=1_000_000_000)]
Warehouses = Annotated[int, Field(ge=1, le=10_000)]
Items = Annotated[int, Field(ge=100, le=100_000)]
CustomersPerDistrict = Annotated[int, Field(ge=30, le=3000)]


class PlacementKind(StrEnum):
    LOCAL = "local"  # worker processes are children of the control plane
    RAY = "ray"  # one Ray actor per worker, spread across the cluster's nodes


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Placement(_Strict):
    """Where a run's workers run. Fixed once the run starts."""

    kind: PlacementKind = Field(
        default=PlacementKind.LOCAL, description="local: child processes of the control plane; ray: one actor each"
    )
    address: RayAddress | None = Field(
        default=None,
        description="the Ray cluster: auto, HOST:PORT (its GCS) or ray://HOST:PORT (Ray Client); "
        "default SPANLOAD_RAY_ADDRESS",
    )
    cpus_per_worker: CpusPerWorker = Field(default=1.0, description="CPUs each worker's Ray actor reserves on its node")

    @model_validator(mode="before")
    @classmethod
    def _address_means_ray(cls, data: Any) -> Any:
        """A placement that gives an address or CPUs but no kind (``spanload run --ray ADDRESS``) is Ray."""
        if isinstance(data, dict) and "kind" not in data and {"address", "cpus_per_worker"} & data.keys():
            return {**data, "kind": PlacementKind.RAY}
        return data


class CommitKnee(_Strict):
    """The local Spanner's synthetic knee (its database options spanload_commit_knee_rate and
    spanload_commit_knee_delay_ms): a commit that finds more than ``rate`` commits of the database
    in the last second takes ``delay_ms`` longer."""

    rate: Annotated[int, Field(ge=0, le=1_000_000)] = Field(
        description="local target only, a synthetic knee: a commit that finds more than this many commits "
        "of the database in the last second is delayed"
    )
    delay_ms: Annotated[int, Field(ge=1, le=60_000)] = Field(
        description="local target only, a synthetic knee: how much longer a commit above the rate takes"
    )


class Target(_Strict):
    kind: TargetKind = Field(
        default=TargetKind.LOCAL,
        description="where the database is: the local Spanner, an emulator or Cloud Spanner",
        json_schema_extra=words("Target", "target"),
    )
    emulator_host: str | None = Field(
        default=None,
        description="host:port of the emulator or of a running local Spanner",
        json_schema_extra=words("Emulator host", "host", "host:port"),
    )
    project: str = Field(
        default="spanload", description="Google Cloud project id", json_schema_extra=words("Project", "project")
    )
    instance: str = Field(
        default="spanload", description="Spanner instance id", json_schema_extra=words("Instance", "instance")
    )
    database: str = Field(
        default=DEFAULT_DATABASE,
        description="database id; a definition's tables are created when missing (spanload: spanload-pg "
        "for the PostgreSQL interfaces)",
        json_schema_extra=words("Database", "database"),
    )
    latency_model: LatencyModel = Field(
        default=LatencyModel.NONE,
        description="local target only: production_like adds a commit round per 2PC round and CPU per participant",
    )
    commit_knee: CommitKnee | None = Field(
        default=None,
        description="local target only: a synthetic knee, for checking a capacity search against a known answer",
    )

    @model_validator(mode="after")
    def _needs_host(self) -> Self:
        if self.kind is TargetKind.EMULATOR and not self.emulator_host:
            raise ValueError("target.emulator_host is required when target.kind is 'emulator'")
        if self.commit_knee is not None and self.kind is not TargetKind.LOCAL:
            raise ValueError(f"target.commit_knee needs target.kind 'local' (got '{self.kind.value}')")
        if self.latency_model is not LatencyModel.NONE and self.kind is not TargetKind.LOCAL:
            raise ValueError(
                f"target.latency_model '{self.latency_model.value}' needs target.kind 'local' "
                f"(got '{self.kind.value}'): only the local Spanner models latency"
            )
        return self


class UpdaterConfig(_Strict):
    enabled: bool = Field(
        default=True,
        description="run the updater, which writes at the target rate",
        json_schema_extra=words("Updater on", "updater"),
    )
    transactions_per_second: Rate = Field(
        default=1.0,
        description="transactions per second (may be below 1)",
        json_schema_extra=words("Write rate", "tx/s", "tx/s"),
    )
    mutations_per_transaction: Mutations = Field(
        default=5,
        description="mean mutations per transaction (uniform 1..2m)",
        json_schema_extra=words("Mutations per tx", "mut/tx", "mutations"),
    )
    parallelism: InFlight = Field(
        default=8,
        description="transactions in flight at most",
        json_schema_extra=words("Updater parallelism", "par", "in flight"),
    )
    mode: UpdaterMode = Field(
        default=UpdaterMode.MUTATIONS,
        description="mutations: single-use commits; dml: read-write transactions with DML; batch_insert: row batches",
        json_schema_extra=words("Write mode", "mode"),
    )
    batch_rows: BatchRows = Field(
        default=6,
        description="rows per commit in batch_insert mode",
        json_schema_extra=words("Rows per batch", "rows", "rows"),
    )
    key_space: KeySpace = Field(
        default=100_000,
        description="keys the updater picks from (uniformly); fewer keys, more overwrites",
        json_schema_extra=words("Key space", "keys", "keys"),
    )


class WatcherConfig(_Strict):
    enabled: bool = Field(
        default=True,
        description="run the change watchers, which poll by commit timestamp",
        json_schema_extra=words("Watchers on", "watchers on"),
    )
    watchers: Watchers = Field(
        default=1,
        description="watchers splitting the shard values",
        json_schema_extra=words("Watchers", "watchers", "watchers"),
    )
    poll_interval_ms: PollIntervalMs = Field(
        default=1000,
        description="time between polls",
        json_schema_extra=words("Poll interval", "poll", "ms"),
    )
    limit: RowLimit = Field(
        default=10_000,
        description="rows per poll; a full page re-polls at once",
        json_schema_extra=words("Row limit", "limit", "rows"),
    )
    table_hint: bool = Field(
        default=True, description="FORCE_INDEX the poll query", json_schema_extra=words("FORCE_INDEX hint", "hint")
    )
    shard_filter: ShardFilter = Field(
        default=ShardFilter.FIXED,
        description="fixed: ShardId IN (-18..18); not_null and none need exactly 1 watcher",
        json_schema_extra=words("Shard filter", "filter"),
    )

    @model_validator(mode="after")
    def _filter_needs_one_watcher(self) -> Self:
        if self.shard_filter is not ShardFilter.FIXED and self.watchers != 1:
            raise ValueError(
                f"watcher.shard_filter '{self.shard_filter.value}' needs watcher.watchers = 1 "
                f"(got {self.watchers}): only a fixed shard list can be split between watchers"
            )
        return self


class ReaderConfig(_Strict):
    enabled: bool = Field(
        default=False,
        description="run readers competing with the writes",
        json_schema_extra=words("Readers on", "readers on"),
    )
    reads_per_second: Rate = Field(
        default=10.0, description="reads per second", json_schema_extra=words("Read rate", "reads/s", "reads/s")
    )
    concurrency: InFlight = Field(
        default=4,
        description="reads in flight at most",
        json_schema_extra=words("Reader concurrency", "conc", "in flight"),
    )
    think_time_ms: ThinkTimeMs = Field(
        default=0, description="pause after each read", json_schema_extra=words("Think time", "think", "ms")
    )
    query: ReaderQuery = Field(
        default=ReaderQuery.POINT,
        description="point: one row by key; recent_changes: the newest rows; leaderboard: a join (session_pool)",
        json_schema_extra=words("Read query", "query"),
    )
    staleness_s: StalenessS = Field(
        default=0.0,
        description="exact staleness of reads; 0 is strong",
        json_schema_extra=words("Staleness", "stale", "s"),
    )


class PreloadConfig(_Strict):
    """The load phase before the measured one: fill the run's table up to ``rows`` rows. Fixed once
    the run starts."""

    rows: PreloadRows = Field(
        default=0,
        description="rows to load before the measured phase (0: none); skipped when the table already holds as many",
        json_schema_extra=words("Preload rows", "preload", "rows"),
    )


class TpccConfig(_Strict):
    """The TPC-C workload (``workload: tpcc``). The data's shape (warehouses, items, customers) is
    fixed once the run starts; the TPC-C specification's sizes are the defaults."""

    warehouses: Warehouses = Field(
        default=1,
        description="warehouses: the scale (10 districts each)",
        json_schema_extra=words("Warehouses", "W", "warehouses"),
    )
    mode: TpccMode = Field(
        default=TpccMode.CLOSED,
        description="closed: terminals back to back; open: Poisson arrivals at a rate",
        json_schema_extra=words("Pacing", "pacing"),
    )
    terminals: InFlight = Field(
        default=8,
        description="terminals (closed), or transactions in flight at most (open)",
        json_schema_extra=words("Terminals", "terms", "terminals"),
    )
    transactions_per_second: Rate = Field(
        default=50.0,
        description="open mode: transactions per second, all types",
        json_schema_extra=words("Transaction rate", "tx/s", "tx/s"),
    )
    keying_think_times: bool = Field(
        default=False,
        description="the specification's keying and think times per terminal (off: throughput)",
        json_schema_extra=words("Keying and think times", "think"),
    )
    items: Items = Field(
        default=100_000,
        description="items (and stock rows per warehouse); the spec has 100,000",
        json_schema_extra=words("Items", "items", "items"),
    )
    customers_per_district: CustomersPerDistrict = Field(
        default=3000,
        description="customers (and initial orders) per district; the spec has 3,000",
        json_schema_extra=words("Customers per district", "cust", "customers"),
    )


DEFAULT_TIMEOUT_MS = 5000


class ClientConfig(_Strict):
    interface: ClientInterface = Field(
        default=ClientInterface.GOOGLESQL,
        description="googlesql: the official client; postgresql: the official client on a PostgreSQL-dialect "
        "database; pgadapter: psycopg or pgx through PGAdapter (started for the run)",
        json_schema_extra=words("Interface", "interface"),
    )
    pgadapter_host: str | None = Field(
        default=None,
        description="host:port of a running PGAdapter for the pgadapter interface; default: one started for the run",
        json_schema_extra=words("PGAdapter host", "pgadapter", "host:port"),
    )
    multiplexed_sessions: bool = Field(
        default=True,
        description="multiplexed sessions (else a session pool)",
        json_schema_extra=words("Multiplexed sessions", "mux"),
    )
    session_pool_size: PoolSize = Field(
        default=100,
        description="sessions in the pool",
        json_schema_extra=words("Session pool size", "pool", "sessions"),
    )
    timeout_ms: TimeoutMs = Field(
        default=DEFAULT_TIMEOUT_MS,
        description="deadline of one operation, every RPC and client retry in it included; "
        "past it the operation fails with DEADLINE_EXCEEDED (or the code that kept it retrying)",
        json_schema_extra=words("Operation timeout", "timeout", "ms"),
    )


class RunConfig(_Strict):
    """Everything that defines a run. ``target``, ``workload``, ``processes``, ``runtime``,
    ``placement`` and ``preload`` are fixed once it starts. ``updater``, ``watcher`` and ``reader``
    drive the report workloads; ``tpcc`` drives ``workload: tpcc`` (which ignores the other three)."""

    name: RunName | None = Field(
        default=None, description="a name for the run", json_schema_extra=words("Name", "name")
    )
    preset: str | None = None
    target: Target = Field(default_factory=Target)
    duration_s: DurationS | None = Field(
        default=None,
        description="how long to run (default: until stopped)",
        json_schema_extra=words("Duration", "duration", "s"),
    )
    warmup_s: WarmupS = Field(
        default=0.0,
        description="seconds at the start whose intervals are measured and charted but left out of the "
        "summary's percentiles, rates and breakdown, the compare and thresholds (e.g. PGAdapter's cold JVM)",
        json_schema_extra=words("Warm-up", "warmup", "s"),
    )
    workload: Workload = Field(
        default=Workload.CHANGE_WATCHER,
        description="change_watcher, write_benchmark, session_pool, participants (the reports' schemas), tpcc, "
        "or definition (a workload definition, started from the Workloads page or --workload-file)",
        json_schema_extra=words("Workload", "workload"),
    )
    processes: Processes = Field(
        default=1,
        description="worker processes to spread updater and reader over",
        json_schema_extra=words("Worker processes", "procs", "processes"),
    )
    runtime: WorkerRuntime = Field(
        default=WorkerRuntime.PYTHON,
        description="worker program: python, or go (7-12x less client CPU per op)",
        json_schema_extra=words("Worker runtime", "runtime"),
    )
    placement: Placement | None = Field(
        default=None,
        description="where the workers run; default: local, or Ray when the server has SPANLOAD_RAY_ADDRESS",
    )
    report_interval_s: ReportIntervalS = Field(
        default=1.0, description="report interval", json_schema_extra=words("Report interval", "interval", "s")
    )
    preload: PreloadConfig = Field(default_factory=PreloadConfig, description="the load phase before the measured one")
    updater: UpdaterConfig = Field(default_factory=UpdaterConfig)
    watcher: WatcherConfig = Field(default_factory=WatcherConfig)
    reader: ReaderConfig = Field(default_factory=ReaderConfig)
    client: ClientConfig = Field(default_factory=ClientConfig)
    tpcc: TpccConfig = Field(default_factory=TpccConfig)
    definition: WorkloadDefinition | None = Field(
        default=None, description="workload 'definition': the workload definition the workers interpret"
    )
    definition_origin: DefinitionOrigin | None = Field(
        default=None,
        description="where the definition came from: a built-in, or a saved definition's name and version",
    )
    knobs: dict[str, KnobValue] = Field(
        default_factory=dict, description="the definition's knob values (unset knobs keep their defaults)"
    )
    operations: dict[str, OperationPacing] = Field(
        default_factory=dict, description="per-operation pacing overrides of the definition's"
    )
    seed: Seed | None = Field(
        default=None, description="the generators' seed: the same seed draws the same values in every runtime"
    )
    create_schema: bool = Field(
        default=False,
        description="consent to create the workload's tables in a database that holds tables not Spanload's own",
    )
    abort_on: list[AbortOn] = Field(
        default_factory=list,
        max_length=MAX_ABORT_RULES,
        description="conditions that stop the run when they hold for a time, judged every interval: "
        "'updater.p99_ms>500 for 30s', 'errors_ps>10 for 5s'",
    )
    capacity: CapacityConfig | None = Field(
        default=None,
        description="capacity search: raise the rate step by step until a stop condition breaks; "
        "the summary names the knee",
    )
    profile: Profile | None = Field(
        default=None,
        description="a schedule of stages (hold, ramp, step) for the updater's rate, or one operation's; "
        "the engine follows it with live patches",
    )

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _schema_is_workload(cls, data: Any) -> Any:
        return legacy_schema(data)

    @property
    def schema_(self) -> SchemaKind:
        """The schema of a report workload (``singers`` for ``change_watcher``...). TPC-C has its
        own nine tables (``spanner/tpcc_schema.py``): asking for this then raises ValueError."""
        try:
            return WORKLOAD_SCHEMAS[self.workload]
        except KeyError:
            raise ValueError(f"workload {self.workload.value!r} has no report schema") from None

    @model_validator(mode="after")
    def _query_fits_schema(self) -> Self:
        if self.reader.query is ReaderQuery.LEADERBOARD and self.workload is not Workload.SESSION_POOL:
            raise ValueError(f"reader.query 'leaderboard' needs workload 'session_pool' (got '{self.workload.value}')")
        if self.workload is Workload.TPCC and self.runtime is not WorkerRuntime.PYTHON:
            raise ValueError(
                f"workload 'tpcc' runs on runtime 'python' only (got '{self.runtime.value}'): "
                "the Go worker does not implement TPC-C"
            )
        if self.workload is Workload.PARTICIPANTS and self.watcher.enabled and self.watcher.table_hint:
            raise ValueError(
                "workload 'participants' has no index to force (UserTable): set watcher.table_hint false or disable it"
            )
        self._check_definition()
        self._check_interface()
        self._check_profile()
        self._check_capacity()
        if self.duration_s is not None and self.warmup_s >= self.duration_s:
            raise ValueError(
                f"warmup_s ({self.warmup_s:g}) must be shorter than duration_s ({self.duration_s:g}): "
                "a run needs measured intervals after its warm-up"
            )
        if self.updater.key_space < self.processes:
            raise ValueError(
                f"updater.key_space ({self.updater.key_space}) must be at least processes ({self.processes})"
            )
        return self

    def _check_definition(self) -> None:
        if self.workload is Workload.DEFINITION and self.definition is None:
            raise ValueError(
                "workload 'definition' runs a workload definition (config.definition) and none was given: "
                "start one from the Workloads page, or give spanload run --workload-file FILE"
            )
        if self.definition is not None and self.workload is not Workload.DEFINITION:
            raise ValueError(
                f"a definition (config.definition) runs with workload 'definition', not '{self.workload.value}'"
            )
        if self.definition is None:
            if self.knobs or self.operations or self.definition_origin:
                raise ValueError(
                    "knobs, operations and definition_origin belong to a workload definition (config.definition)"
                )
            return
        if self.definition_origin is not None and self.definition_origin.definition != self.definition.name:
            raise ValueError(
                f"definition_origin.definition: {self.definition_origin.definition!r} is not the definition's name "
                f"{self.definition.name!r}"
            )
        try:
            self.definition.knob_values(self.knobs)
        except ValueError as err:
            raise ValueError(f"knobs.{err}") from None
        check_overrides(self.definition, self.operations)

    def _check_interface(self) -> None:
        """A PostgreSQL interface runs PostgreSQL definitions and TPC-C (whose statements exist in
        both dialects), and GoogleSQL only GoogleSQL definitions."""
        from spanload.model.workload import Dialect

        interface = self.client.interface
        pg = interface in PG_INTERFACES
        if pg and self.target.database == DEFAULT_DATABASE:  # the GoogleSQL runs' database
            self.target = self.target.model_copy(update={"database": PG_DATABASE})
        if self.definition is None:
            if pg and self.workload is not Workload.TPCC:
                raise ValueError(
                    f"client.interface '{interface.value}' runs workload definitions with dialect: postgresql "
                    f"(e.g. workloads/shop_pg.yaml) and workload 'tpcc'; workload '{self.workload.value}' "
                    "is GoogleSQL only"
                )
            return
        if pg != (self.definition.dialect is Dialect.POSTGRESQL):
            wanted = "'postgresql' or 'pgadapter'" if not pg else "'googlesql'"
            raise ValueError(
                f"client.interface '{interface.value}' cannot run definition {self.definition.name!r} of "
                f"dialect: {self.definition.dialect.value}; set client.interface to {wanted}"
            )

    def _check_profile(self) -> None:
        """The profile names what it drives, and every value it sets fits that field's own bounds."""
        if self.profile is None:
            return
        self._check_driven("profile", self.profile.operation, self.profile.values())

    def _check_capacity(self) -> None:
        if self.capacity is None:
            return
        if self.profile is not None:
            raise ValueError("capacity: a capacity search sets the rate itself; it cannot follow a profile too")
        c = self.capacity
        self._check_driven("capacity", c.operation, [c.start_rate, c.max_rate])
        if is_closed_loop(c.operation, self.definition):
            raise ValueError(f"capacity.operation: {c.operation} is closed loop; a capacity search raises a rate")

    def _check_driven(self, section: str, operation: str | None, values: list[float]) -> None:
        """``section`` (a profile, a capacity search) drives what it names, within that field's bounds."""
        if self.workload is Workload.TPCC:
            raise ValueError(
                f"{section}: workload 'tpcc' has no updater rate to drive (use tpcc.transactions_per_second)"
            )
        check_target(section, operation, self.definition)
        if self.definition is None and not self.updater.enabled:
            raise ValueError(f"{section}: it drives updater.transactions_per_second, but updater.enabled is false")
        for value in (min(values), max(values)):
            try:
                ConfigPatch.model_validate(patch_for(operation, self.definition, value))
            except ValidationError as err:
                problem = err.errors()[0]["msg"]
                raise ValueError(
                    f"{section}: it sets {field_of(operation, self.definition)} to {value:g}: {problem}"
                ) from None

    def profile_peak(self) -> float | None:
        """The highest rate a profile or capacity search asks of an open-loop field; None without one."""
        if self.capacity is not None:
            return self.capacity.max_rate
        if self.profile is None or is_closed_loop(self.profile.operation, self.definition):
            return None
        return max(self.profile.values())

    def seeded(self) -> RunConfig:
        """This config with a seed: its own, or one drawn now (stored with the run, so a run can be
        drawn again the same way)."""
        if self.seed is not None:
            return self
        # below 2**53: a browser reads JSON numbers as doubles, and showed 7539331600080458484 as
        # 7539331600080459000, a seed that draws other values when typed back in
        return self.model_copy(update={"seed": secrets.randbelow(2**53)})

    def knob_values(self) -> dict[str, KnobValue]:
        """Every knob of the definition with its value in this run (defaults for the unset)."""
        return self.definition.knob_values(self.knobs) if self.definition is not None else {}

    def watches(self) -> bool:
        """The run has a change watcher: its definition's watch, or a report workload's watcher."""
        if self.workload is Workload.TPCC:
            return False
        if self.definition is not None:
            return self.definition.watch is not None
        return self.watcher.enabled

    def watch_mode(self) -> WatchMode | None:
        """How the definition's watch watches with this run's knobs; None without a watch."""
        watch = self.definition.watch if self.definition is not None else None
        if self.definition is None or watch is None:
            return None
        return watch.mode_in(self.knob_values(), self.definition.knobs)

    def apply(self, patch: ConfigPatch) -> RunConfig:
        """Return a new config with ``patch`` applied, validated as a whole. Raises :class:`RunInvalid`."""
        if patch.knobs and self.definition is not None:
            for name, value in patch.knobs.items():
                knob = self.definition.knobs.get(name)
                if knob is not None and not knob.live and value != self.knob_values()[name]:
                    raise RunInvalid(
                        f"knobs.{name}: this knob cannot change while the run goes on (live: false)", f"knobs.{name}"
                    )
        new = self.merged(patch.model_dump(exclude_unset=True, by_alias=True))
        self._check_watch_switch(new)
        return new

    def _check_watch_switch(self, new: RunConfig) -> None:
        """A switch of the watch between polling and a change stream (its mode's knob changed) needs a
        target and dialect whose change streams the watchers read. Raises :class:`RunInvalid` naming
        the knob and why."""
        watch = self.definition.watch if self.definition is not None else None
        if self.definition is None or watch is None:
            return
        name = watch.mode_knob
        if name is None:  # a knob of the watch's modes that the watch does not follow: the mode is pinned
            before, after = self.knob_values(), new.knob_values()
            for knob, spec in self.definition.knobs.items():
                if spec.choices and set(spec.choices) <= set(WatchMode) and before[knob] != after[knob]:
                    pinned = f"the definition pins watch.mode to {watch.mode}"
                    raise RunInvalid(
                        f"knobs.{knob}: cannot switch the watch to {after[knob]}: {pinned}", f"knobs.{knob}"
                    )
            return
        wanted = new.watch_mode()
        if wanted is self.watch_mode() or wanted is not WatchMode.CHANGE_STREAM:
            return
        field = f"knobs.{name}"
        why: str | None = None
        if self.target.kind is TargetKind.EMULATOR:
            why = "the Cloud Spanner emulator has no change streams; the run can only poll"
        elif self.definition.dialect is Dialect.POSTGRESQL:
            why = "the watchers read change streams of GoogleSQL databases only; this definition is PostgreSQL"
        if why is not None:
            raise RunInvalid(f"{field}: cannot switch the watch to change_stream: {why}", field)

    def in_own_terms(self, patch: ConfigPatch) -> ConfigPatch:
        """``patch`` in this config's terms: on a run of a built-in definition, its legacy sections'
        fields as the knobs and operations they set (what the run's config shows, so that a live
        change is recorded and compared against the field it changed). Raises :class:`RunInvalid`."""
        translated = self._builtin_knobs(patch.model_dump(exclude_unset=True, by_alias=True), "")
        return ConfigPatch.model_validate(translated)

    def merged(self, overrides: dict[str, Any], prefix: str = "") -> RunConfig:
        """This config with ``overrides`` (nested like the config) deep-merged on top, validated as a
        whole. Raises :class:`RunInvalid` naming the field, its message after ``prefix``."""
        overrides = self._builtin_knobs(overrides, prefix)  # raises RunInvalid naming its field
        try:
            return RunConfig.model_validate(deep_merge(self.model_dump(by_alias=True), legacy_schema(overrides)))
        except ValidationError as err:
            raise RunInvalid.from_validation(err, prefix) from None
        except ValueError as err:  # legacy_schema's, before pydantic sees the dict
            raise RunInvalid(prefix + str(err), "schema") from None

    def _builtin_knobs(self, overrides: dict[str, Any], prefix: str) -> dict[str, Any]:
        """On a run of a built-in definition, ``overrides``' ``updater``/``watcher``/``reader``/``preload``
        fields (the documented flags, old configs' fields, live patches) become its knobs and
        operations (model/builtin_knobs.py). Other configs take them as they are."""
        workload = overrides.get("workload", self.workload)
        if getattr(workload, "value", workload) != Workload.DEFINITION.value:
            return overrides
        given = overrides.get("definition")
        name = given.get("name") if isinstance(given, dict) else self.definition.name if self.definition else None
        if name is None:
            return overrides
        if name not in LEGACY_KNOBS:  # a user's definition: the report's fields would be silently unused
            for section in LEGACY_SECTIONS:
                body = overrides.get(section)
                if isinstance(body, dict) and body:
                    field = f"{section}.{next(iter(body))}"
                    raise RunInvalid(
                        f"{prefix}{field}: a field of the built-in report workloads; workload {name!r} takes "
                        "its own knobs (--set name=value, or knobs in the request) and operations",
                        field,
                    )
            return overrides
        self._check_sections(overrides, prefix)
        return translate(name, overrides, prefix)

    def _check_sections(self, overrides: dict[str, Any], prefix: str) -> None:
        """The legacy sections' values within their own fields' bounds, so that ``--tps -1`` is refused
        naming ``updater.transactions_per_second``, the field given, not the knob it sets."""
        for section in ("updater", "watcher", "reader", "preload"):
            given = overrides.get(section)
            if not isinstance(given, dict) or not given:
                continue
            model = type(getattr(self, section))
            try:
                model.model_validate({**model().model_dump(), **given})
            except ValidationError as err:
                located = RunInvalid.from_validation(err)
                raise RunInvalid(f"{prefix}{section}.{located}", f"{section}.{located.field}") from None

    def _operation_rates(self) -> list[tuple[str, float]]:
        """(``operations.<op>.rate``, its rate) of the definition's enabled open-loop operations."""
        assert self.definition is not None
        knobs = self.knob_values()
        out = []
        for op in self.definition.operations:
            pacing = resolve(self.definition, op, knobs, self.operations.get(op))
            if pacing.enabled and pacing.rate is not None:
                out.append((self._rate_field(op), pacing.rate))
        return out

    def _rate_field(self, op: str) -> str:
        """The field a message about operation ``op``'s rate names: ``operations.<op>.rate``, or, on a
        run of a built-in definition whose rate is a knob a legacy field sets (``write``'s
        ``$transactions_per_second``), that field (``updater.transactions_per_second``), as given."""
        assert self.definition is not None
        given = self.operations.get(op)
        rate = self.definition.operations[op].rate
        origin = self.definition_origin
        if (given is None or given.rate is None) and isinstance(rate, str) and origin is not None:
            legacy = (
                legacy_field(origin.definition, rate.removeprefix("$")) if origin.source is OriginKind.BUILTIN else None
            )
            if legacy is not None:
                return legacy
        return f"operations.{op}.rate"

    def check_rate_cap(self, max_tps: float) -> None:
        """Cloud targets take an upper bound on rates (SPANLOAD_MAX_TPS), so that a typo cannot hammer
        production. Raises :class:`RunInvalid` naming the field."""
        if self.target.kind is not TargetKind.CLOUD:
            return
        rates = [
            ("updater.transactions_per_second", self.updater.transactions_per_second),
            ("reader.reads_per_second", self.reader.reads_per_second),
        ]
        if self.workload is Workload.TPCC:  # its pacer's rate is used by TPC-C runs only
            rates.append(("tpcc.transactions_per_second", self.tpcc.transactions_per_second))
        if self.definition is not None:  # every operation of a definition that runs on a schedule
            rates += self._operation_rates()
        if (peak := self.profile_peak()) is not None:
            rates.append(("profile", peak))
        for field, rate in rates:
            if rate > max_tps:
                raise RunInvalid(
                    f"{field} = {rate:g} exceeds SPANLOAD_MAX_TPS = {max_tps:g} for a cloud target; "
                    "raise SPANLOAD_MAX_TPS if you mean it",
                    field,
                )


class _Patch(BaseModel):
    """A live change to ``config_model``: the same fields with the same bounds (the aliases above),
    each optional; only the fields that are set change. Written out so that mypy sees the fields,
    and checked against ``config_model`` when the class is made, so the two cannot drift apart."""

    model_config = ConfigDict(extra="forbid")

    config_model: ClassVar[type[BaseModel]]
    fixed: ClassVar[frozenset[str]] = frozenset()  # fields of config_model that cannot change live

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        _check_patch(cls)

    @model_validator(mode="before")
    @classmethod
    def _refuse_fixed(cls, data: Any) -> Any:
        """A field in ``fixed`` is refused by its name, as fixed for the run (model/fixed_fields.py)."""
        return refuse_fixed(cls.fixed, data)


def _field_schema(annotation: Any, metadata: list[Any]) -> dict[str, Any]:
    schema: dict[str, Any] = TypeAdapter(Annotated[annotation, *metadata] if metadata else annotation).json_schema()
    return schema


def _non_none(annotation: Any) -> list[Any]:
    """The members of an optional or union annotation other than None; a plain one as is."""
    if get_origin(annotation) in (Union, UnionType):
        return [a for a in get_args(annotation) if a is not type(None)]
    return [annotation]


def _check_patch(patch: type[_Patch]) -> None:
    config = patch.config_model
    expected = set(config.model_fields) - patch.fixed
    if set(patch.model_fields) != expected:
        raise TypeError(f"{patch.__name__} must have exactly the live fields of {config.__name__}: {sorted(expected)}")
    for name, field in patch.model_fields.items():
        source = config.model_fields[name]
        members = _non_none(field.annotation)
        if field.default is not None or len(members) != 1:
            raise TypeError(f"{patch.__name__}.{name} must be optional with default None")
        (member,) = members
        wanted = _non_none(source.annotation)
        if isinstance(member, type) and issubclass(member, _Patch):
            same = [member.config_model] == wanted
        else:
            same = len(wanted) == 1 and _field_schema(member, field.metadata) == _field_schema(
                wanted[0], source.metadata
            )
        if not same:
            raise TypeError(f"{patch.__name__}.{name} must have the type and bounds of {config.__name__}.{name}")


class UpdaterPatch(_Patch):
    config_model = UpdaterConfig

    enabled: bool | None = None
    transactions_per_second: Rate | None = None
    mutations_per_transaction: Mutations | None = None
    parallelism: InFlight | None = None
    mode: UpdaterMode | None = None
    batch_rows: BatchRows | None = None
    key_space: KeySpace | None = None


class WatcherPatch(_Patch):
    config_model = WatcherConfig

    enabled: bool | None = None
    watchers: Watchers | None = None
    poll_interval_ms: PollIntervalMs | None = None
    limit: RowLimit | None = None
    table_hint: bool | None = None
    shard_filter: ShardFilter | None = None


class ReaderPatch(_Patch):
    config_model = ReaderConfig

    enabled: bool | None = None
    reads_per_second: Rate | None = None
    concurrency: InFlight | None = None
    think_time_ms: ThinkTimeMs | None = None
    query: ReaderQuery | None = None
    staleness_s: StalenessS | None = None


class ClientPatch(_Patch):
    config_model = ClientConfig
    fixed = frozenset({"interface", "pgadapter_host"})

    multiplexed_sessions: bool | None = None
    session_pool_size: PoolSize | None = None
    timeout_ms: TimeoutMs | None = None


class TpccPatch(_Patch):
    config_model = TpccConfig
    fixed = frozenset({"warehouses", "mode", "items", "customers_per_district"})

    terminals: InFlight | None = None
    transactions_per_second: Rate | None = None
    keying_think_times: bool | None = None


class ConfigPatch(_Patch):
    """A live change. Only the fields that are set change; those in ``fixed`` cannot: what the run
    is (name, preset, target, workload and its definition, seed), how its workers run (processes,
    runtime, placement, report interval), which intervals are warm-up (warmup_s), what happens
    before it (preload, create_schema) and the engine's own drivers (abort_on, capacity, profile)."""

    config_model = RunConfig
    fixed = frozenset(
        {
            "name",
            "preset",
            "target",
            "workload",
            "processes",
            "runtime",
            "placement",
            "report_interval_s",
            "warmup_s",  # which intervals are warm-up is decided once, from the start
            "preload",
            "definition",
            "definition_origin",
            "seed",
            "create_schema",
            "abort_on",
            "capacity",
            "profile",  # edited live through the profile's own actions (skip, extend, abandon)
        }
    )

    duration_s: DurationS | None = None
    updater: UpdaterPatch | None = None
    watcher: WatcherPatch | None = None
    reader: ReaderPatch | None = None
    client: ClientPatch | None = None
    tpcc: TpccPatch | None = None
    knobs: dict[str, KnobValue] | None = None
    operations: dict[str, OperationPacing] | None = None

    def changed_fields(self) -> dict[str, Any]:
        """Flat ``{"updater.transactions_per_second": 20.0}`` view, for event labels."""
        out: dict[str, Any] = {}
        for section, value in self.model_dump(exclude_unset=True, exclude_none=True, mode="json").items():
            if section == "operations":
                out.update(
                    {
                        f"operations.{op}.{k}": v
                        for op, fields in value.items()
                        for k, v in fields.items()
                        if v is not None
                    }
                )
            elif isinstance(value, dict):
                out.update({f"{section}.{k}": v for k, v in value.items()})
            else:
                out[section] = value
        return out


def deep_merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``patch`` laid over it, nested dicts merged key by key."""
    out = dict(base)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out
