"""The configuration of a run: one pydantic model, and the patch that changes it live.

Every knob except ``target``, ``schema``, ``processes`` and ``runtime`` may be changed while a run is going.
Invalid combinations are rejected with a message that names the field.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from spanload.model.errors import RunInvalid

SHARD_COUNT = 37  # ShardId = MOD(FARM_FINGERPRINT(...), 19) takes the values -18..18


class TargetKind(StrEnum):
    LOCAL = "local"
    EMULATOR = "emulator"
    CLOUD = "cloud"


class SchemaKind(StrEnum):
    SINGERS = "singers"  # the Change Watcher table
    TWEETS = "tweets"  # the write benchmark
    LEADERBOARD = "leaderboard"  # Players / Scores


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


class WorkerRuntime(StrEnum):
    """The program a run's workers are: the same protocol, the same workloads, another client library."""

    PYTHON = "python"  # python -m spanload.workers.process, google-cloud-spanner
    GO = "go"  # spanload-worker-go (goworker/), cloud.google.com/go/spanner


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Target(_Strict):
    kind: TargetKind = TargetKind.LOCAL
    emulator_host: str | None = Field(default=None, description="host:port of the emulator or local server")
    project: str = "spanload"
    instance: str = "spanload"
    database: str = "spanload"

    @model_validator(mode="after")
    def _needs_host(self) -> Self:
        if self.kind is TargetKind.EMULATOR and not self.emulator_host:
            raise ValueError("target.emulator_host is required when target.kind is 'emulator'")
        return self


class UpdaterConfig(_Strict):
    enabled: bool = True
    transactions_per_second: Annotated[float, Field(gt=0, le=100_000)] = 1.0
    mutations_per_transaction: Annotated[int, Field(ge=1, le=10_000)] = 5
    parallelism: Annotated[int, Field(ge=1, le=512)] = 8
    mode: UpdaterMode = UpdaterMode.MUTATIONS
    batch_rows: Annotated[int, Field(ge=1, le=1000)] = 6
    key_space: Annotated[int, Field(ge=1, le=1_000_000_000)] = Field(
        default=100_000, description="keys the updater picks from (uniformly); fewer keys, more overwrites"
    )


class WatcherConfig(_Strict):
    enabled: bool = True
    watchers: Annotated[int, Field(ge=1, le=SHARD_COUNT)] = 1
    poll_interval_ms: Annotated[int, Field(ge=10, le=3_600_000)] = 1000
    limit: Annotated[int, Field(ge=1, le=1_000_000)] = 10_000
    table_hint: bool = True
    shard_filter: ShardFilter = ShardFilter.FIXED

    @model_validator(mode="after")
    def _filter_needs_one_watcher(self) -> Self:
        if self.shard_filter is not ShardFilter.FIXED and self.watchers != 1:
            raise ValueError(
                f"watcher.shard_filter '{self.shard_filter.value}' needs watcher.watchers = 1 "
                f"(got {self.watchers}): only a fixed shard list can be split between watchers"
            )
        return self


class ReaderConfig(_Strict):
    enabled: bool = False
    reads_per_second: Annotated[float, Field(gt=0, le=100_000)] = 10.0
    concurrency: Annotated[int, Field(ge=1, le=512)] = 4
    think_time_ms: Annotated[int, Field(ge=0, le=600_000)] = 0
    query: ReaderQuery = ReaderQuery.POINT
    staleness_s: Annotated[float, Field(ge=0, le=3600)] = 0.0


DEFAULT_TIMEOUT_MS = 5000


class ClientConfig(_Strict):
    multiplexed_sessions: bool = True
    session_pool_size: Annotated[int, Field(ge=1, le=10_000)] = 100
    timeout_ms: Annotated[int, Field(ge=50, le=600_000)] = Field(
        default=DEFAULT_TIMEOUT_MS,
        description="deadline of one operation, every RPC and client retry in it included; "
        "past it the operation fails with DEADLINE_EXCEEDED (or the code that kept it retrying)",
    )


class RunConfig(_Strict):
    """Everything that defines a run. ``target``, ``schema``, ``processes`` and ``runtime`` are fixed
    once it starts."""

    name: str | None = Field(default=None, max_length=200)
    preset: str | None = None
    target: Target = Field(default_factory=Target)
    duration_s: Annotated[float, Field(gt=0, le=7 * 24 * 3600)] | None = None
    schema_: SchemaKind = Field(default=SchemaKind.SINGERS, alias="schema")
    processes: Annotated[int, Field(ge=1, le=64)] = 1
    runtime: WorkerRuntime = Field(
        default=WorkerRuntime.PYTHON, description="worker program: python, or go (7-12x less client CPU per op)"
    )
    report_interval_s: Annotated[float, Field(ge=0.1, le=60)] = 1.0
    updater: UpdaterConfig = Field(default_factory=UpdaterConfig)
    watcher: WatcherConfig = Field(default_factory=WatcherConfig)
    reader: ReaderConfig = Field(default_factory=ReaderConfig)
    client: ClientConfig = Field(default_factory=ClientConfig)

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _query_fits_schema(self) -> Self:
        if self.reader.query is ReaderQuery.LEADERBOARD and self.schema_ is not SchemaKind.LEADERBOARD:
            raise ValueError(f"reader.query 'leaderboard' needs schema 'leaderboard' (got '{self.schema_.value}')")
        if self.updater.key_space < self.processes:
            raise ValueError(
                f"updater.key_space ({self.updater.key_space}) must be at least processes ({self.processes})"
            )
        return self

    def apply(self, patch: ConfigPatch) -> RunConfig:
        """Return a new config with ``patch`` applied, validated as a whole. Raises :class:`RunInvalid`."""
        return self.merged(patch.model_dump(exclude_unset=True, by_alias=True))

    def merged(self, overrides: dict[str, Any], prefix: str = "") -> RunConfig:
        """This config with ``overrides`` (nested like the config) deep-merged on top, validated as a
        whole. Raises :class:`RunInvalid` naming the field, its message after ``prefix``."""
        try:
            return RunConfig.model_validate(deep_merge(self.model_dump(by_alias=True), overrides))
        except ValidationError as err:
            raise RunInvalid.from_validation(err, prefix) from None

    def check_rate_cap(self, max_tps: float) -> None:
        """Cloud targets take an upper bound on rates (SPANLOAD_MAX_TPS), so that a typo cannot hammer
        production. Raises :class:`RunInvalid` naming the field."""
        if self.target.kind is not TargetKind.CLOUD:
            return
        for field, rate in (
            ("updater.transactions_per_second", self.updater.transactions_per_second),
            ("reader.reads_per_second", self.reader.reads_per_second),
        ):
            if rate > max_tps:
                raise RunInvalid(
                    f"{field} = {rate:g} exceeds SPANLOAD_MAX_TPS = {max_tps:g} for a cloud target; "
                    "raise SPANLOAD_MAX_TPS if you mean it",
                    field,
                )


class _Patch(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UpdaterPatch(_Patch):
    enabled: bool | None = None
    transactions_per_second: Annotated[float, Field(gt=0, le=100_000)] | None = None
    mutations_per_transaction: Annotated[int, Field(ge=1, le=10_000)] | None = None
    parallelism: Annotated[int, Field(ge=1, le=512)] | None = None
    mode: UpdaterMode | None = None
    batch_rows: Annotated[int, Field(ge=1, le=1000)] | None = None
    key_space: Annotated[int, Field(ge=1, le=1_000_000_000)] | None = None


class WatcherPatch(_Patch):
    enabled: bool | None = None
    watchers: Annotated[int, Field(ge=1, le=SHARD_COUNT)] | None = None
    poll_interval_ms: Annotated[int, Field(ge=10, le=3_600_000)] | None = None
    limit: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    table_hint: bool | None = None
    shard_filter: ShardFilter | None = None


class ReaderPatch(_Patch):
    enabled: bool | None = None
    reads_per_second: Annotated[float, Field(gt=0, le=100_000)] | None = None
    concurrency: Annotated[int, Field(ge=1, le=512)] | None = None
    think_time_ms: Annotated[int, Field(ge=0, le=600_000)] | None = None
    query: ReaderQuery | None = None
    staleness_s: Annotated[float, Field(ge=0, le=3600)] | None = None


class ClientPatch(_Patch):
    multiplexed_sessions: bool | None = None
    session_pool_size: Annotated[int, Field(ge=1, le=10_000)] | None = None
    timeout_ms: Annotated[int, Field(ge=50, le=600_000)] | None = None


class ConfigPatch(_Patch):
    """A live change. Only the fields that are set change; ``target`` and ``schema`` cannot."""

    duration_s: Annotated[float, Field(gt=0, le=7 * 24 * 3600)] | None = None
    updater: UpdaterPatch | None = None
    watcher: WatcherPatch | None = None
    reader: ReaderPatch | None = None
    client: ClientPatch | None = None

    def changed_fields(self) -> dict[str, Any]:
        """Flat ``{"updater.transactions_per_second": 20.0}`` view, for event labels."""
        out: dict[str, Any] = {}
        for section, value in self.model_dump(exclude_unset=True, mode="json").items():
            if isinstance(value, dict):
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
