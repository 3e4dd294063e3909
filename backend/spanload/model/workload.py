"""A workload definition: tables, knobs, value generators, operations and an optional watcher, as data.

One definition file (YAML or JSON, read by :mod:`spanload.model.workload_file`) describes a workload;
the ``start`` message carries it to every worker, and each runtime (Python ``workers/interp``, Go
``goworker/internal/interp``) interprets it. Its semantics are written down once, in
``workloads/README.md``; its JSON Schema (this model's) is served at ``GET /api/workloads/schema``.

The model accepts exactly the form users write, so the schema an editor completes against is the
schema of the file:

- a *generator* is a one-key mapping ``{zipf: {n: $customers, s: 1.1}}`` (plus an optional
  ``null_fraction``), or one of the bare words ``uuid``, ``now``, ``commit_timestamp``;
- a *value* (a statement parameter, a mutation's column) is a ``$name`` reference to a knob, a
  value of ``values`` or a bound column, a generator, or a literal scalar;
- a *number* that sizes something (a bound, a rate, a row count) is a literal or a ``$knob``.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"
REF_PATTERN = r"^\$[A-Za-z_][A-Za-z0-9_]{0,63}$"
DURATION_PATTERN = r"^[0-9]+(\.[0-9]+)?(us|ms|s|m|h)$"
_REF = re.compile(REF_PATTERN)
_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(us|ms|s|m|h)$")
_DURATION_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}

Name = Annotated[str, Field(pattern=NAME_PATTERN)]
Ref = Annotated[str, Field(pattern=REF_PATTERN, description="$name: a knob (or, where a value goes, a value)")]
Number = int | float | Ref
Duration = Annotated[
    str | Ref,
    Field(description="a duration with its unit (250ms, 10s, 1m), or $knob: a knob used as a duration is in ms"),
]


def is_ref(value: object) -> bool:
    """``$name``: a reference to a knob, a value or a bound column."""
    return isinstance(value, str) and _REF.match(value) is not None


def ref_name(value: str) -> str:
    return value[1:]


def duration_ms(text: str) -> float:
    """``"250ms"`` -> 250.0, ``"1m"`` -> 60000.0. Raises ValueError on anything else."""
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a duration: a number and a unit (us, ms, s, m, h), e.g. 500ms or 10s")
    return float(match.group(1)) * _DURATION_MS[match.group(2)]


def _check_duration(value: str) -> str:
    if not is_ref(value):
        duration_ms(value)
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Dialect(StrEnum):
    GOOGLESQL = "googlesql"
    POSTGRESQL = "postgresql"


# -- knobs ------------------------------------------------------------------------------------

KnobValue = bool | int | float | str


class Knob(_Strict):
    """A typed, bounded variable: a control in the UI, ``--set name=value`` on the command line.
    Its type is its default's (bool, int, float or string)."""

    default: KnobValue
    min: float | None = Field(None, description="lowest value (numbers)")
    max: float | None = Field(None, description="highest value (numbers)")
    choices: list[str] | None = Field(None, description="the values a string knob may take")
    live: bool = Field(True, description="may change while the run goes on")
    help: str = ""
    unit: str = Field("", description="shown beside the control, e.g. ms, rows, tx/s")

    @property
    def kind(self) -> str:
        if isinstance(self.default, bool):
            return "bool"
        if isinstance(self.default, int):
            return "int"
        if isinstance(self.default, float):
            return "float"
        return "string"

    @model_validator(mode="after")
    def _bounds(self) -> Self:
        numeric = self.kind in ("int", "float")
        if not numeric and (self.min is not None or self.max is not None):
            raise ValueError(f"min and max bound numbers; this knob's default {self.default!r} is a {self.kind}")
        if self.choices is not None and self.kind != "string":
            raise ValueError("choices are for string knobs")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min:g}) is above max ({self.max:g})")
        self.check(self.default, "default")
        return self

    def check(self, value: object, what: str = "value") -> KnobValue:
        """``value`` as this knob's type, within its bounds. Raises ValueError with a sentence."""
        kind = self.kind
        if kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"{what}: {value!r} is not true or false")
            return value
        if kind in ("int", "float"):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{what}: {value!r} is not a number")
            if kind == "int" and (isinstance(value, float) and not value.is_integer()):
                raise ValueError(f"{what}: {value!r} is not a whole number")
            number: int | float = int(value) if kind == "int" else float(value)
            if self.min is not None and number < self.min:
                raise ValueError(f"{what}: {number:g} is below the minimum {self.min:g}")
            if self.max is not None and number > self.max:
                raise ValueError(f"{what}: {number:g} is above the maximum {self.max:g}")
            return number
        if not isinstance(value, str):
            raise ValueError(f"{what}: {value!r} is not a string")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{what}: {value!r} is not one of {', '.join(map(repr, self.choices))}")
        return value


# -- generators -------------------------------------------------------------------------------


class _Gen(_Strict):
    null_fraction: float = Field(0.0, ge=0, le=1, description="share of draws that are NULL")


class UniformParams(_Strict):
    min: Number = 1
    max: Number


class ZipfParams(_Strict):
    n: Number = Field(description="draws 1..n, 1 the most frequent")
    s: Number = Field(1.0, description="the exponent (> 0); YCSB's zipfian uses 0.99")


class SequenceParams(_Strict):
    start: Number = 1
    step: Number = 1


class ChoiceParams(_Strict):
    values: list[KnobValue] = Field(min_length=1)
    weights: list[float] | None = None

    @model_validator(mode="after")
    def _weights(self) -> Self:
        if self.weights is not None:
            if len(self.weights) != len(self.values):
                raise ValueError(f"{len(self.weights)} weights for {len(self.values)} values")
            if any(w < 0 for w in self.weights) or sum(self.weights) <= 0:
                raise ValueError("weights must be >= 0 with a positive sum")
        return self


Length = Number | Annotated[list[Number], Field(min_length=2, max_length=2)]
DEFAULT_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


class StringParams(_Strict):
    length: Length = Field(description="a length, or [min, max]")
    alphabet: str = Field(DEFAULT_ALPHABET, min_length=1)


class BytesParams(_Strict):
    length: Length


class DecimalParams(_Strict):
    min: Number
    max: Number
    scale: int = Field(2, ge=0, le=9)


class FloatParams(_Strict):
    min: Number = 0.0
    max: Number = 1.0


# What both runtimes read: Python's date / datetime.fromisoformat and Go's civil.ParseDate and the
# three layouts of goworker's parseTimestamp (RFC 3339, or no zone for UTC, or a space with a zone)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ZONE = r"(Z|[+-]\d{2}:\d{2})"
_TIMESTAMP = re.compile(
    rf"^\d{{4}}-\d{{2}}-\d{{2}}(T[\d:]{{8}}(\.\d{{1,9}})?{_ZONE}?| [\d:]{{8}}(\.\d{{1,9}})?{_ZONE})$"
)


def moment(text: str, timestamp: bool) -> dt.date:
    """The day (or, with ``timestamp``, the moment) ``text`` names; ValueError saying the form
    expected when it is none."""
    form = "an RFC 3339 timestamp such as 2026-01-01T00:00:00Z" if timestamp else "a date YYYY-MM-DD"
    try:
        if (_TIMESTAMP if timestamp else _DATE).match(text):
            if not timestamp:
                return dt.date.fromisoformat(text)
            instant = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
            return instant if instant.tzinfo else instant.replace(tzinfo=dt.UTC)
    except ValueError:
        pass
    raise ValueError(f"{text!r} is not {form}")


class DateParams(_Strict):
    min: str = Field(description="YYYY-MM-DD")
    max: str = Field(description="YYYY-MM-DD")


class TimestampParams(_Strict):
    min: str = Field(description="RFC 3339, e.g. 2020-01-01T00:00:00Z")
    max: str = Field(description="RFC 3339")


class Uniform(_Gen):
    uniform: UniformParams


class Zipf(_Gen):
    zipf: ZipfParams


class Sequence(_Gen):
    sequence: SequenceParams


class Choice(_Gen):
    choice: ChoiceParams


class String(_Gen):
    string: StringParams


class Bytes(_Gen):
    bytes: BytesParams


class Decimal(_Gen):
    decimal: DecimalParams


class Float(_Gen):
    float: FloatParams


class Date(_Gen):
    date: DateParams


class Timestamp(_Gen):
    timestamp: TimestampParams


class Uuid(_Gen):
    uuid: dict[str, Any] = Field(default_factory=dict, max_length=0)


class Const(_Gen):
    const: KnobValue | None


class VersionedKeyParams(_Strict):
    max: Number = Field(description="keys 0..max-1; worker w of n writes the keys k % n == w")


class VersionedKey(_Strict):
    """An INT64 key this worker owns and no other execution of it is writing, with its next version
    (no null_fraction: a key is never NULL)."""

    versioned_key: VersionedKeyParams


GENERATOR_KINDS = (
    "uniform",
    "zipf",
    "sequence",
    "choice",
    "string",
    "bytes",
    "decimal",
    "float",
    "date",
    "timestamp",
    "uuid",
    "const",
    "versioned_key",
)
BARE_GENERATORS = ("uuid", "now", "commit_timestamp", "fresh_key", "version", "writer_id")
"""Generators written as a bare word. ``now`` is the worker's clock when drawn; ``commit_timestamp``
is Spanner's commit-timestamp placeholder (mutations and DML only); ``fresh_key`` a new key of this
run, ``version`` the version of the key drawn beside it, ``writer_id`` this worker's writer id."""
KEY_GENERATORS = ("versioned_key", "fresh_key")
"""Generators whose keys the worker's ledger keeps, for the watcher's reconciliation."""
LEDGER_GENERATORS = (*KEY_GENERATORS, "version", "writer_id")
"""Generators drawn per execution of an operation, from the worker's ledger: not in a load."""


def _generator_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return value if value in BARE_GENERATORS else None
    if isinstance(value, dict):
        kinds = [k for k in value if k in GENERATOR_KINDS]
        return kinds[0] if len(kinds) == 1 else None
    if isinstance(value, BaseModel):
        return next((k for k in GENERATOR_KINDS if k in type(value).model_fields), None)
    return None


Generator = Annotated[
    Annotated[Uniform, Tag("uniform")]
    | Annotated[Zipf, Tag("zipf")]
    | Annotated[Sequence, Tag("sequence")]
    | Annotated[Choice, Tag("choice")]
    | Annotated[String, Tag("string")]
    | Annotated[Bytes, Tag("bytes")]
    | Annotated[Decimal, Tag("decimal")]
    | Annotated[Float, Tag("float")]
    | Annotated[Date, Tag("date")]
    | Annotated[Timestamp, Tag("timestamp")]
    | Annotated[Uuid, Tag("uuid")]
    | Annotated[Const, Tag("const")]
    | Annotated[VersionedKey, Tag("versioned_key")]
    | Annotated[Literal["uuid"], Tag("uuid")]
    | Annotated[Literal["now"], Tag("now")]
    | Annotated[Literal["commit_timestamp"], Tag("commit_timestamp")]
    | Annotated[Literal["fresh_key"], Tag("fresh_key")]
    | Annotated[Literal["version"], Tag("version")]
    | Annotated[Literal["writer_id"], Tag("writer_id")],
    Discriminator(
        _generator_tag,
        custom_error_type="unknown_generator",
        custom_error_message="not a generator: one of "
        + ", ".join(dict.fromkeys((*GENERATOR_KINDS, *BARE_GENERATORS))),
    ),
]


def generator_kind(gen: Any) -> str:
    """``zipf``, ``uuid``, ``commit_timestamp``...: the kind of a parsed generator."""
    kind = _generator_tag(gen)
    assert kind is not None
    return kind


def _value_tag(value: Any) -> str:
    if is_ref(value):
        return "ref"
    if _generator_tag(value) is not None:
        return "generator"
    return "literal"


Value = Annotated[
    Annotated[Ref, Tag("ref")] | Annotated[Generator, Tag("generator")] | Annotated[KnobValue | None, Tag("literal")],
    Discriminator(_value_tag),
]
"""Where a value goes (a parameter, a column): ``$name``, a generator, or a literal."""


# -- steps ------------------------------------------------------------------------------------


class SqlStep(_Strict):
    """A query or DML statement. Its ``@name`` parameters (``$1``.. on PostgreSQL, named in
    ``params``) take the value of that name unless ``params`` says otherwise."""

    sql: str = Field(min_length=1)
    params: dict[str, Value] = Field(default_factory=dict, description="parameter -> value, beside the @names")
    bind: dict[str, str] = Field(
        default_factory=dict, description="name -> column of the first row, a value for later steps"
    )


class MutationParams(_Strict):
    table: Name
    columns: dict[str, Value] = Field(min_length=1)
    rows: Number | Generator = Field(1, description="rows per execution; inline generators draw anew per row")


class KeyParams(_Strict):
    table: Name
    key: dict[str, Value] = Field(min_length=1, description="key column -> value, in key order")
    rows: Number | Generator = 1


class ReadParams(_Strict):
    table: Name
    index: Name | None = None
    key: dict[str, Value] = Field(min_length=1, description="key (or index key) column -> value, in key order")
    columns: list[str] = Field(min_length=1)
    limit: int | None = Field(None, ge=1)


class InsertStep(_Strict):
    insert: MutationParams


class UpdateStep(_Strict):
    update: MutationParams


class InsertOrUpdateStep(_Strict):
    insert_or_update: MutationParams


class ReplaceStep(_Strict):
    replace: MutationParams


class DeleteStep(_Strict):
    delete: KeyParams


class ReadStep(_Strict):
    read: ReadParams
    bind: dict[str, str] = Field(default_factory=dict)


STEP_KINDS = ("sql", "insert", "update", "insert_or_update", "replace", "delete", "read")
MUTATION_KINDS = ("insert", "update", "insert_or_update", "replace", "delete")


def _step_tag(value: Any) -> str | None:
    keys = value.keys() if isinstance(value, dict) else type(value).model_fields if isinstance(value, BaseModel) else ()
    kinds = [k for k in keys if k in STEP_KINDS]
    return kinds[0] if len(kinds) == 1 else None


Step = Annotated[
    Annotated[SqlStep, Tag("sql")]
    | Annotated[InsertStep, Tag("insert")]
    | Annotated[UpdateStep, Tag("update")]
    | Annotated[InsertOrUpdateStep, Tag("insert_or_update")]
    | Annotated[ReplaceStep, Tag("replace")]
    | Annotated[DeleteStep, Tag("delete")]
    | Annotated[ReadStep, Tag("read")],
    Discriminator(
        _step_tag,
        custom_error_type="unknown_step",
        custom_error_message="a step is one of: " + ", ".join(STEP_KINDS),
    ),
]


def step_kind(step: BaseModel) -> str:
    kind = _step_tag(step)
    assert kind is not None
    return kind


# -- operations -------------------------------------------------------------------------------


class TransactionKind(StrEnum):
    SINGLE_USE = "single_use"  # one read or query in a single-use snapshot, or mutations in one single-use commit
    READ_ONLY = "read_only"  # reads and queries in one multi-use snapshot
    READ_WRITE = "read_write"  # any steps in one read-write transaction, retried when aborted
    BATCH_WRITE = "batch_write"  # mutations through BatchWrite, one mutation group per execution
    PARTITIONED_DML = "partitioned_dml"  # one DML statement, run as Partitioned DML


class Staleness(_Strict):
    exact: Duration | None = None
    max: Duration | None = None

    @model_validator(mode="after")
    def _one(self) -> Self:
        given = [v for v in (self.exact, self.max) if v is not None]
        if len(given) != 1:
            raise ValueError("staleness takes exactly one of exact or max")
        _check_duration(given[0])
        return self


DEFAULT_MAX_IN_FLIGHT = 32


class Operation(_Strict):
    """One kind of work: open loop (``rate``, Poisson arrivals, at most ``max_in_flight`` running) or
    closed loop (``concurrency`` executors, each pausing ``think_time`` after an execution)."""

    rate: Number | None = Field(None, description="executions per second, open loop (Poisson arrivals)")
    max_in_flight: Number = Field(DEFAULT_MAX_IN_FLIGHT, description="open loop: executions running at most")
    concurrency: Number | None = Field(None, description="closed loop: executors back to back")
    think_time: Duration = Field("0ms", description="closed loop: pause after each execution")
    enabled: bool = True
    transaction: TransactionKind = TransactionKind.READ_WRITE
    staleness: Staleness | None = Field(None, description="read_only / single_use reads: strong when absent")
    steps: list[Step] = Field(min_length=1)

    @field_validator("think_time")
    @classmethod
    def _think_time(cls, value: str) -> str:
        return _check_duration(value)

    @property
    def writes(self) -> bool:
        """It writes: a mutation step, or a transaction that exists to write (DML included)."""
        writing = (TransactionKind.READ_WRITE, TransactionKind.BATCH_WRITE, TransactionKind.PARTITIONED_DML)
        return self.transaction in writing or any(step_kind(s) in MUTATION_KINDS for s in self.steps)

    @model_validator(mode="after")
    def _shape(self) -> Self:
        if (self.rate is None) == (self.concurrency is None):
            raise ValueError("an operation takes exactly one of rate (open loop) or concurrency (closed loop)")
        kinds = [step_kind(s) for s in self.steps]
        reads = [k for k in kinds if k in ("sql", "read")]
        mutations = [k for k in kinds if k in MUTATION_KINDS]
        tx = self.transaction
        if tx is TransactionKind.SINGLE_USE and not (mutations and not reads) and len(kinds) != 1:
            raise ValueError("a single_use operation is one read or query, or mutations only (one single-use commit)")
        if tx is TransactionKind.READ_ONLY and mutations:
            raise ValueError(f"a read_only operation cannot write ({', '.join(mutations)})")
        if tx is TransactionKind.BATCH_WRITE and reads:
            raise ValueError("a batch_write operation holds mutations only")
        if tx is TransactionKind.PARTITIONED_DML and kinds != ["sql"]:
            raise ValueError("a partitioned_dml operation is exactly one sql step (a DML statement)")
        if self.staleness is not None and tx not in (TransactionKind.READ_ONLY, TransactionKind.SINGLE_USE):
            raise ValueError(f"staleness applies to read_only and single_use reads, not {tx.value}")
        if self.staleness is not None and self.staleness.max is not None and tx is not TransactionKind.SINGLE_USE:
            raise ValueError("max staleness is for single_use reads only (Spanner's rule)")
        return self


# -- load and watch ---------------------------------------------------------------------------


class TableLoad(_Strict):
    """The preload phase fills ``table`` with ``rows`` rows; row i draws its columns from generators
    seeded by (run seed, table, i), so a load is the same whichever worker writes which rows, and a
    ``sequence`` column takes ``start + i * step``."""

    rows: Number
    columns: dict[str, Value] = Field(min_length=1)


class WatchMode(StrEnum):
    """How the watcher learns of changes: polling the table, or reading a change stream."""

    POLL = "poll"
    CHANGE_STREAM = "change_stream"


class WatchVersions(_Strict):
    """The columns a versioned write (``versioned_key`` / ``fresh_key``) carries: the watcher reads
    them with each change and reconciles what it received against the writers' ledgers."""

    version: Name = Field(description="the INT64 column the writes fill with version")
    writer: Name = Field(description="the STRING column the writes fill with writer_id")


class WatchShards(_Strict):
    """Poll mode: the values of ``column`` split round-robin between the pollers (poller i gets
    values[i::watchers]), each polling only its own with ``column IN (...)``."""

    column: Name
    values: list[int] = Field(min_length=1)


class Watch(_Strict):
    """The change watcher: polls ``table`` for rows whose ``timestamp`` column (a commit timestamp)
    is past the last one seen, at most ``limit`` rows a poll; or, in ``change_stream`` mode, reads a
    change stream on ``table`` (``stream``, created when missing), a reader per partition."""

    table: Name
    mode: WatchMode | Ref = Field(
        WatchMode.POLL,
        description="poll or change_stream; or $knob, a string knob with choices poll and change_stream: the run "
        "then switches between them live, handing over where the other stopped",
    )
    stream: Name | None = Field(default=None, description="change_stream mode: its stream (SpanloadWatch_<table>)")
    heartbeat: Duration = Field(default="1s", description="change_stream mode: heartbeat_milliseconds of its reads")
    timestamp: Name = Field(description="a TIMESTAMP column with allow_commit_timestamp = true")
    key: list[Name] = Field(default_factory=list, description="the table's key columns (default: from the schema)")
    poll_interval: Duration = "1s"
    limit: Number = 10_000
    watchers: Number = 1
    index: Name | None = Field(
        None, description="poll mode: the index the poll is forced through (FORCE_INDEX) while force_index is true"
    )
    force_index: bool | Ref = Field(True, description="poll mode: hint the poll with FORCE_INDEX=index; a bool knob")
    filter: str | None = Field(
        None,
        description="poll mode: a condition every polled row meets (e.g. ShardId IS NOT NULL), ANDed first: "
        "a forced NULL_FILTERED index needs one that excludes its NULLs",
    )
    versions: WatchVersions | None = Field(
        None, description="reconcile exactly: each change's version and writer columns (a one-column INT64 key)"
    )
    shards: WatchShards | None = Field(None, description="poll mode: the pollers split these values of a column")

    @field_validator("poll_interval", "heartbeat")
    @classmethod
    def _interval(cls, value: str) -> str:
        return _check_duration(value)

    @model_validator(mode="after")
    def _hint(self) -> Self:
        if self.index is None and self.force_index is not True:
            raise ValueError("force_index hints the poll with watch.index: name the index")
        return self

    def hinted(self, knobs: dict[str, KnobValue], defaults: dict[str, Knob]) -> str | None:
        """The index the poll is forced through with these knob values, or None (no hint)."""
        if self.index is None:
            return None
        force: KnobValue = self.force_index
        if isinstance(force, str) and is_ref(force):
            name = ref_name(force)
            force = knobs.get(name, defaults[name].default)
        return self.index if force is True else None

    def mode_in(self, knobs: dict[str, KnobValue], defaults: dict[str, Knob]) -> WatchMode:
        """The mode with these knob values (``mode`` itself, or its knob's value)."""
        if isinstance(self.mode, WatchMode):
            return self.mode
        if not is_ref(self.mode):
            return WatchMode(self.mode)
        name = ref_name(self.mode)
        return WatchMode(str(knobs.get(name, defaults[name].default)))

    @property
    def mode_knob(self) -> str | None:
        """The knob the mode follows (the run may switch live), or None: the definition pins it."""
        return ref_name(self.mode) if is_ref(self.mode) else None

    def may_stream(self) -> bool:
        """The watch reads a change stream, or may switch to one."""
        return self.mode_knob is not None or self.mode == WatchMode.CHANGE_STREAM

    def stream_name(self) -> str:
        """The change stream a ``change_stream`` watcher reads."""
        return self.stream or f"SpanloadWatch_{self.table}"

    def stream_ddl(self, dialect: Dialect) -> str:
        """The statement that creates :meth:`stream_name` on ``table`` when the database has no stream
        of that name (every runtime runs this one, the Go worker as the start message carries it).
        With ``versions`` it captures the NEW_ROW: every mod's new values then hold the version and
        writer columns, also on an update that leaves the writer as it was (the default
        OLD_AND_NEW_VALUES keeps only the columns that changed). PostgreSQL sets options WITH (...)."""
        ddl = f"CREATE CHANGE STREAM {self.stream_name()} FOR {self.table}"
        if self.versions is None:
            return ddl
        option = "value_capture_type = 'NEW_ROW'"
        return f"{ddl} WITH ({option})" if dialect is Dialect.POSTGRESQL else f"{ddl} OPTIONS ({option})"


# -- the definition ---------------------------------------------------------------------------


class WorkloadDefinition(_Strict):
    """A workload as data. See ``workloads/README.md`` for what each part does."""

    name: Name
    description: str = ""
    dialect: Dialect = Dialect.GOOGLESQL
    ddl: list[str] = Field(default_factory=list, description="created when missing; never dropped")
    knobs: dict[Name, Knob] = Field(default_factory=dict)
    values: dict[Name, Generator] = Field(
        default_factory=dict, description="drawn once per execution of an operation, shared by its steps"
    )
    load: dict[Name, TableLoad] = Field(default_factory=dict, description="table -> its preload, in this order")
    operations: dict[Name, Operation] = Field(min_length=1)
    watch: Watch | None = None

    @model_validator(mode="after")
    def _references(self) -> Self:
        clash = set(self.knobs) & set(self.values)
        if clash:
            raise ValueError(f"{', '.join(sorted(clash))}: a name is either a knob or a value, not both")
        for path, ref, wanted in references(self):
            name = ref_name(ref)
            if name in self.knobs or (wanted != "knob" and name in self.values):
                continue
            if wanted.startswith("bind:") and name in wanted[5:].split(","):
                continue
            what = "knob" if wanted == "knob" else "knob, value or column bound by an earlier step"
            raise ValueError(f"{path}: {ref} names no {what}")
        _check_versions(self)
        if self.watch is not None and (mode := self.watch.mode_knob) is not None:
            choices = self.knobs[mode].choices
            if not choices or not set(choices) <= {m.value for m in WatchMode}:
                raise ValueError(
                    f"watch.mode: ${mode} is a knob the mode follows: give it choices among "
                    f"{', '.join(m.value for m in WatchMode)} (now {choices or 'none'})"
                )
        force = self.watch.force_index if self.watch is not None else True
        if isinstance(force, str) and self.knobs[ref_name(force)].kind != "bool":
            kind = self.knobs[ref_name(force)].kind
            raise ValueError(f"watch.force_index: {force} is not a bool knob (its default is a {kind})")
        return self

    def numeric_knob(self, ref: Number, knobs: dict[str, KnobValue]) -> float:
        """A number field's value: the literal, or the knob's value in ``knobs`` (its default when unset)."""
        if isinstance(ref, str):
            name = ref_name(ref)
            value = knobs.get(name, self.knobs[name].default)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{ref} is a {self.knobs[name].kind} knob where a number goes")
            return float(value)
        return float(ref)

    def knob_values(self, given: dict[str, KnobValue]) -> dict[str, KnobValue]:
        """Every knob's value: ``given`` checked against its knob, the defaults for the rest.
        Raises ValueError naming the knob."""
        unknown = sorted(set(given) - set(self.knobs))
        if unknown:
            raise ValueError(
                f"{', '.join(unknown)}: no such knob in workload {self.name!r} "
                f"(knobs: {', '.join(sorted(self.knobs)) or 'none'})"
            )
        out: dict[str, KnobValue] = {}
        for name, knob in self.knobs.items():
            out[name] = knob.check(given[name], name) if name in given else knob.default
        return out


def _ledger_kind(item: Any) -> str | None:
    """``versioned_key``, ``fresh_key``, ``version`` or ``writer_id`` for those generators, else None."""
    if is_ref(item):
        return None
    kind = _generator_tag(item)
    return kind if kind in LEDGER_GENERATORS else None


def _check_versions(definition: WorkloadDefinition) -> None:
    """``version`` needs exactly one key drawn beside it: in its row (a mutation's columns, a sql
    step's params), or else in the values its operation uses. No ledger generator in a load."""
    for table, load in definition.load.items():
        for column, item in load.columns.items():
            if (kind := _ledger_kind(item)) is not None:
                raise ValueError(f"load.{table}.columns.{column}: {kind} is drawn by an operation, not in a load")
    for name, gen in definition.values.items():
        if (
            _ledger_kind(gen) == "version"
            and sum(_ledger_kind(g) in KEY_GENERATORS for g in definition.values.values()) == 0
        ):
            raise ValueError(f"values.{name}: version needs a versioned_key or fresh_key in values")
    for op_name, op in definition.operations.items():
        used = {ref_name(r) for p, r, _ in references(definition) if p.startswith(f"operations.{op_name}.")}
        used &= set(definition.values)
        in_values = [v for v in used if _ledger_kind(definition.values[v]) in KEY_GENERATORS]
        for v in sorted(used):
            if _ledger_kind(definition.values[v]) == "version" and len(in_values) != 1:
                raise ValueError(
                    f"operations.{op_name}: ${v} is a version, which needs exactly one versioned_key or fresh_key "
                    f"among the values the operation uses (it uses {len(in_values)})"
                )
        for i, step in enumerate(op.steps):
            kind = step_kind(step)
            if isinstance(step, SqlStep):
                base, items = f"operations.{op_name}.steps.{i}.params", step.params
            elif isinstance(step, ReadStep):
                base, items = f"operations.{op_name}.steps.{i}.read.key", step.read.key
            else:
                params = getattr(step, kind)
                base = f"operations.{op_name}.steps.{i}.{kind}"
                items = params.key if isinstance(params, KeyParams) else params.columns
            in_row = sum(_ledger_kind(item) in KEY_GENERATORS for item in items.values())
            for column, item in items.items():
                if _ledger_kind(item) != "version":
                    continue
                if in_row > 1 or (in_row == 0 and len(in_values) != 1):
                    where = f"{in_row} in this row" if in_row else f"{len(in_values)} among the operation's values"
                    raise ValueError(
                        f"{base}.{column}: version needs exactly one versioned_key or fresh_key beside it ({where})"
                    )


def references(definition: WorkloadDefinition) -> list[tuple[str, str, str]]:
    """Every ``$name`` of a definition as ``(path, ref, wanted)``: ``wanted`` is ``knob`` in a number
    field or a generator's parameter, ``value`` where a value goes, and ``bind:a,b`` in a step after
    steps that bound ``a`` and ``b``."""
    out: list[tuple[str, str, str]] = []

    def number(path: str, value: Any) -> None:
        if is_ref(value):
            out.append((path, value, "knob"))
        elif isinstance(value, BaseModel):
            generator(path, value)

    def generator(path: str, gen: Any) -> None:
        out.extend((f"{path}.{p}", r, "knob") for p, r in _generator_refs(gen))

    def value(path: str, item: Any, wanted: str) -> None:
        if is_ref(item):
            out.append((path, item, wanted))
        else:
            generator(path, item)

    for name, gen in definition.values.items():
        generator(f"values.{name}", gen)
    for table, load in definition.load.items():
        number(f"load.{table}.rows", load.rows)
        for column, item in load.columns.items():
            value(f"load.{table}.columns.{column}", item, "value")
    for name, op in definition.operations.items():
        base = f"operations.{name}"
        for field in ("rate", "max_in_flight", "concurrency", "think_time"):
            number(f"{base}.{field}", getattr(op, field))
        bound: list[str] = []
        for i, step in enumerate(op.steps):
            wanted = "bind:" + ",".join(bound) if bound else "value"
            spath = f"{base}.steps.{i}"
            kind = step_kind(step)
            if isinstance(step, SqlStep):
                for param, item in step.params.items():
                    value(f"{spath}.params.{param}", item, wanted)
            elif isinstance(step, ReadStep):
                for column, item in step.read.key.items():
                    value(f"{spath}.read.key.{column}", item, wanted)
            else:
                params = getattr(step, kind)
                number(f"{spath}.{kind}.rows", params.rows)
                items = params.key if isinstance(params, KeyParams) else params.columns
                for column, item in items.items():
                    value(f"{spath}.{kind}.{column}", item, wanted)
            bound.extend(getattr(step, "bind", {}))
    if definition.watch is not None:
        for field in ("mode", "poll_interval", "limit", "watchers", "heartbeat", "force_index"):
            number(f"watch.{field}", getattr(definition.watch, field))
    return out


def _generator_refs(gen: Any) -> list[tuple[str, str]]:
    """``$knob`` references inside one generator's parameters."""
    if not isinstance(gen, BaseModel):
        return []
    out: list[tuple[str, str]] = []
    for field in type(gen).model_fields:
        params = getattr(gen, field)
        if isinstance(params, BaseModel):
            for pname in type(params).model_fields:
                pvalue = getattr(params, pname)
                items = pvalue if isinstance(pvalue, list) else [pvalue]
                out.extend((f"{field}.{pname}", v) for v in items if is_ref(v))
    return out


def generator_refs(gen: Any) -> list[str]:
    """The knob names a generator's parameters refer to."""
    return [ref_name(r) for _, r in _generator_refs(gen)]


def moment_problems(definition: WorkloadDefinition) -> list[tuple[str, str]]:
    """``(path, message)`` for each date or timestamp generator whose min or max is no day or moment
    both runtimes read, or whose min is after its max. A new definition's check
    (:mod:`spanload.engine.workload_check`) asks, not the model: a stored run's config stays readable."""
    out: list[tuple[str, str]] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, DateParams | TimestampParams):
            timestamp = isinstance(node, TimestampParams)
            bounds = []
            for end in ("min", "max"):
                try:
                    bounds.append(moment(getattr(node, end), timestamp))
                except ValueError as err:
                    out.append((f"{path}.{end}", str(err)))
            if len(bounds) == 2 and bounds[0] > bounds[1]:
                out.append((path, f"min {node.min} is after max {node.max}"))
        elif isinstance(node, BaseModel):
            for name, field in type(node).model_fields.items():
                walk(getattr(node, name), f"{path}.{field.alias or name}".lstrip("."))
        elif isinstance(node, dict):
            for key, item in node.items():
                walk(item, f"{path}.{key}")
        elif isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{path}.{i}")

    walk(definition, "")
    return out
