"""An operation of a definition, compiled for the hot path, and one execution of it
(workloads/README.md, "Operations" and "Order of draws").

:func:`compile_operation` resolves everything that does not change between executions: which
values the operation refers to (in ``values`` order), each step's parameters (the ``@name``\\ s of
its SQL outside literals and hints, with ``params`` beside them), its mutation columns and read
keys, where each value comes from (a ``$name``, an inline generator, a literal) and its Spanner
type. An execution then draws everything first (:meth:`CompiledOperation.draw`: the values, then
each step's rows and inline generators in the order written), so a read-write transaction that the
client retries after an abort runs again with the same values, and executes the steps in one
transaction of its kind with the official client (:meth:`CompiledOperation.execute`).
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from google.cloud.spanner_v1 import COMMIT_TIMESTAMP, KeySet, param_types
from google.cloud.spanner_v1.types import Type
from pydantic import BaseModel

from spanload.model import workload_types
from spanload.model.pacing import knob_duration_ms
from spanload.model.workload import (
    BARE_GENERATORS,
    KEY_GENERATORS,
    MUTATION_KINDS,
    DeleteStep,
    Dialect,
    KeyParams,
    KnobValue,
    MutationParams,
    Operation,
    ReadStep,
    SqlStep,
    TransactionKind,
    WorkloadDefinition,
    generator_kind,
    is_ref,
    ref_name,
    step_kind,
)
from spanload.spanner import deadline
from spanload.workers.interp import generators
from spanload.workers.interp.generators import Draw, Sequence, compile_generator, integer
from spanload.workers.interp.ledger import FreshKeys, WriteLedger
from spanload.workers.interp.prng import SplitMix64
from spanload.workers.interp.sql import is_dml, scan
from spanload.workers.interp.sql_pg import scan_pg

REF, DRAWN, LITERAL = 0, 1, 2  # where a slot's value comes from

PARAM_TYPES: dict[str, Type] = {
    "INT64": param_types.INT64,
    "STRING": param_types.STRING,
    "BYTES": param_types.BYTES,
    "NUMERIC": param_types.NUMERIC,
    "FLOAT64": param_types.FLOAT64,
    "BOOL": param_types.BOOL,
    "DATE": param_types.DATE,
    "TIMESTAMP": param_types.TIMESTAMP,
    "JSON": param_types.JSON,
}
"""The client's type of each Spanner type name of model/workload_types.py (the one table of types)."""


PG_PARAM_TYPES: dict[str, Type] = {"NUMERIC": param_types.PG_NUMERIC, "JSON": param_types.PG_JSONB}
"""A PostgreSQL database's own names for the types that differ (Spanner's PG-dialect docs: numeric
is NUMERIC annotated PG_NUMERIC, jsonb is JSON annotated PG_JSONB)."""


def pg_type(t: Type | None) -> Type | None:
    """``t`` as a PostgreSQL database takes it."""
    for name, pg in PG_PARAM_TYPES.items():
        if t == PARAM_TYPES[name]:
            return pg
    return t


def literal_type(value: object) -> Type:
    """The Spanner type of a literal (a knob's value, a ``choice`` or ``const`` value)."""
    return PARAM_TYPES[workload_types.literal_type(value) or "STRING"]


def generator_type(gen: Any) -> Type:
    """The Spanner type a generator draws (the README's table)."""
    return PARAM_TYPES[workload_types.generator_type(gen) or "STRING"]


class DefinitionError(ValueError):
    """A definition the interpreter cannot run as written; the message names the place."""


def is_generator(item: object) -> bool:
    """A parsed generator (a model, or a bare word), not a ``$name`` or a literal."""
    return isinstance(item, BaseModel) or (isinstance(item, str) and item in BARE_GENERATORS)


def client_value(value: Any) -> Any:
    """A drawn value as the Python client takes it: its commit-timestamp sentinel, BYTES in base64."""
    if value is generators.COMMIT_TIMESTAMP:
        return COMMIT_TIMESTAMP
    if value.__class__ is bytes:
        return base64.b64encode(value)
    return value


@dataclass(slots=True)
class Slot:
    """One parameter, column or key part: ``how`` (REF, DRAWN, LITERAL) and ``what`` (the name, the
    index among its row's inline draws, the value); ``type`` None for a column bound at run time."""

    name: str
    how: int
    what: Any
    type: Type | None


@dataclass(slots=True)
class Step:
    kind: str  # sql, read, or a mutation kind
    slots: list[Slot]
    inline: list[Draw]  # the row's inline generators, in the order written
    rows: int | Draw = 1
    sql: str = ""
    dml: bool = False
    table: str = ""
    columns: tuple[str, ...] = ()
    index: str = ""
    limit: int = 0
    bind: list[tuple[str, str]] = field(default_factory=list)


Drawn = tuple[dict[str, Any], list[list[list[Any]]]]
"""An execution's draws: the environment (knobs and values) and, per step, per row, its inline draws."""

Writes = list[tuple[int, int]]
"""The (key, version) pairs an execution reserved in its worker's ledger (versioned_key, fresh_key)."""


class Executed(NamedTuple):
    """What one execution did: ``rows`` read or written, and of them ``written``: the mutation rows
    and the rows its DML statements changed (the run's ``mutations``, as the Go worker counts them)."""

    rows: int
    written: int


class CompiledOperation:
    """One operation with the run's knob values: :meth:`draw` then :meth:`execute`."""

    def __init__(
        self,
        name: str,
        transaction: TransactionKind,
        env: dict[str, Any],
        values: list[tuple[str, Draw]],
        steps: list[Step],
        snapshot_args: dict[str, dt.timedelta],
        ledger: WriteLedger | None = None,
    ) -> None:
        self.name = name
        self.transaction = transaction
        self._env = env
        self._values = values
        self.steps = steps
        self._snapshot_args = snapshot_args
        self.on_retries: Callable[[int], None] | None = None  # read-write attempts after the first
        self.ledger = ledger  # set when the operation draws versioned_key or fresh_key
        # the steps whose rows are written: mutations, and DML run as an update (not THEN RETURN with bind)
        self.write_steps = [i for i, s in enumerate(steps) if s.kind in MUTATION_KINDS or (s.dml and not s.bind)]
        self.writes = any(s.kind in MUTATION_KINDS or s.dml for s in steps)  # counts transactions
        self._run = {
            TransactionKind.SINGLE_USE: self._single_use,
            TransactionKind.READ_ONLY: self._read_only,
            TransactionKind.READ_WRITE: self._read_write,
            TransactionKind.BATCH_WRITE: self._batch_write,
            TransactionKind.PARTITIONED_DML: self._partitioned_dml,
        }[transaction]

    # -- draws ------------------------------------------------------------------------------------

    def draw(self, rng: SplitMix64, seq: Sequence, writes: Writes | None = None) -> Drawn:
        """Every draw of one execution, in the README's order. The keys it reserves in the ledger
        (versioned_key, fresh_key) are appended to ``writes`` as they are drawn, so that the caller
        can release them whatever happens next."""
        if self.ledger is not None:
            return self._draw_versioned(rng, seq, self.ledger, [] if writes is None else writes)
        env = self._env.copy()
        for name, gen in self._values:
            env[name] = client_value(gen.draw(rng, seq))
        per_step: list[list[list[Any]]] = []
        for step in self.steps:
            rows = step.rows if isinstance(step.rows, int) else _row_count(step.rows.draw(rng, seq))
            inline = step.inline
            if inline:
                per_step.append([[client_value(g.draw(rng, seq)) for g in inline] for _ in range(rows)])
            else:
                per_step.append([[]] * rows)
        return env, per_step

    def _draw_versioned(self, rng: SplitMix64, seq: Sequence, ledger: WriteLedger, writes: Writes) -> Drawn:
        """:meth:`draw` for an operation with keys from the ledger: a ``version`` takes the version of
        the key drawn in its row, else the one drawn in the execution's values."""

        def key(gen: Draw) -> tuple[int, int]:
            if gen.kind == "versioned_key":
                drawn = ledger.reserve_owned(gen.draw(rng, seq), rng.below)
            else:
                (drawn,) = ledger.reserve(1, fresh=True)
            writes.append(drawn)
            return drawn

        env = self._env.copy()
        version = None
        versions: list[str] = []
        for name, gen in self._values:
            if gen.kind in KEY_GENERATORS:
                env[name], version = key(gen)
            elif gen.kind == "version":
                versions.append(name)
            else:
                env[name] = client_value(gen.draw(rng, seq))
        for name in versions:
            env[name] = version
        per_step: list[list[list[Any]]] = []
        for step in self.steps:
            rows = step.rows if isinstance(step.rows, int) else _row_count(step.rows.draw(rng, seq))
            inline = step.inline
            drawn_rows: list[list[Any]] = []
            for _ in range(rows):
                row: list[Any] = []
                row_version, pending = version, []
                for i, gen in enumerate(inline):
                    if gen.kind in KEY_GENERATORS:
                        k, row_version = key(gen)
                        row.append(k)
                    elif gen.kind == "version":
                        pending.append(i)
                        row.append(None)
                    else:
                        row.append(client_value(gen.draw(rng, seq)))
                for i in pending:
                    row[i] = row_version
                drawn_rows.append(row)
            per_step.append(drawn_rows)
        return env, per_step

    # -- execution --------------------------------------------------------------------------------

    def execute(self, database: Any, drawn: Drawn) -> Executed:
        """Run one execution in a transaction of the operation's kind; returns the rows it read or
        wrote, and those it wrote. Raises the client's error."""
        per_step = self._run(database, drawn)
        return Executed(sum(per_step), sum(per_step[i] for i in self.write_steps))

    @property
    def snapshot_args(self) -> dict[str, dt.timedelta]:
        """The staleness of its snapshots (``exact_staleness`` / ``max_staleness``); empty: strong."""
        return self._snapshot_args

    def run_steps(self, txn: Any, drawn: Drawn) -> int:
        """Every step on one transaction (a snapshot or a read-write transaction), whatever the
        operation's kind: a dry run's way to execute it once and roll it back."""
        env, per_step = drawn
        scope: dict[str, Any] = env.copy()
        types: dict[str, Type] = {}  # the bound columns' types, from the results' metadata
        return sum(self._step(txn, s, scope, types, rows) for s, rows in zip(self.steps, per_step, strict=True))

    # each runs an execution and returns the rows each step read or wrote, step by step

    def _single_use(self, database: Any, drawn: Drawn) -> list[int]:
        env, per_step = drawn
        if self.steps[0].kind in ("sql", "read"):
            with database.snapshot(**self._snapshot_args) as snapshot:
                return [self._step(snapshot, self.steps[0], env, {}, per_step[0])]
        with database.batch(timeout_secs=deadline.timeout_s()) as batch:
            return [self._step(batch, s, env, {}, rows) for s, rows in zip(self.steps, per_step, strict=True)]

    def _read_only(self, database: Any, drawn: Drawn) -> list[int]:
        env, per_step = drawn
        types: dict[str, Type] = {}  # the bound columns' types, from the results' metadata
        with database.snapshot(multi_use=True, **self._snapshot_args) as snapshot:
            return [self._step(snapshot, s, env, types, rows) for s, rows in zip(self.steps, per_step, strict=True)]

    def _read_write(self, database: Any, drawn: Drawn) -> list[int]:
        env, per_step = drawn
        attempts = 0

        def work(transaction: Any) -> list[int]:
            nonlocal attempts
            attempts += 1
            scope = env.copy()  # binds of an aborted attempt do not leak
            types: dict[str, Type] = {}
            return [
                self._step(transaction, s, scope, types, rows) for s, rows in zip(self.steps, per_step, strict=True)
            ]

        try:
            counts: list[int] = database.run_in_transaction(work, timeout_secs=deadline.timeout_s())
        finally:
            if attempts > 1 and self.on_retries is not None:
                self.on_retries(attempts - 1)
        return counts

    def _batch_write(self, database: Any, drawn: Drawn) -> list[int]:
        env, per_step = drawn
        with database.mutation_groups() as groups:
            group = groups.group()
            counts = [self._step(group, s, env, {}, r) for s, r in zip(self.steps, per_step, strict=True)]
            for response in groups.batch_write():
                if response.status.code != 0:
                    raise BatchWriteError(
                        f"batch write failed with code {response.status.code}: {response.status.message}"
                    )
        return counts

    def _partitioned_dml(self, database: Any, drawn: Drawn) -> list[int]:
        env, per_step = drawn
        step = self.steps[0]
        params, types = _params(step, env, {}, per_step[0][0])
        count: int = database.execute_partitioned_dml(step.sql, params=params or None, param_types=types or None)
        return [count]

    def _step(self, txn: Any, step: Step, env: dict[str, Any], types: dict[str, Type], rows: list[list[Any]]) -> int:
        """One step on a snapshot, transaction, batch or mutation group; returns rows read or written."""
        kind = step.kind
        if kind == "sql":
            params, ptypes = _params(step, env, types, rows[0])
            if step.dml:
                count: int = txn.execute_update(
                    step.sql,
                    params=params or None,
                    param_types=ptypes or None,
                    retry=deadline.rpc_retry(),
                    timeout=deadline.rpc_timeout(),
                )
                return count
            result = txn.execute_sql(
                step.sql,
                params=params or None,
                param_types=ptypes or None,
                retry=deadline.rpc_retry(),
                timeout=deadline.rpc_timeout(),
            )
            return _consume(result, step, env, types)
        if kind == "read":
            key = [_value(slot, env, rows[0]) for slot in step.slots]
            result = txn.read(
                step.table,
                step.columns,
                KeySet(keys=[key]),  # type: ignore[no-untyped-call]
                index=step.index,
                limit=step.limit,
                retry=deadline.rpc_retry(),
                timeout=deadline.rpc_timeout(),
            )
            return _consume(result, step, env, types)
        slots = step.slots
        values = [tuple([_value(slot, env, row) for slot in slots]) for row in rows]
        if kind == "delete":
            txn.delete(step.table, KeySet(keys=[list(v) for v in values]))  # type: ignore[no-untyped-call]
        else:
            getattr(txn, kind)(step.table, step.columns, values)
        return len(values)


class BatchWriteError(RuntimeError):
    """BatchWrite answered a group with a failed status (it is not raised by the client)."""


def _row_count(value: Any) -> int:
    if value is None:
        return 0
    return max(0, int(value))


def _value(slot: Slot, env: dict[str, Any], row: list[Any]) -> Any:
    how = slot.how
    if how == REF:
        return env[slot.what]
    if how == DRAWN:
        return row[slot.what]
    return slot.what


def _params(
    step: Step, env: dict[str, Any], types: dict[str, Type], row: list[Any]
) -> tuple[dict[str, Any], dict[str, Type]]:
    params: dict[str, Any] = {}
    ptypes: dict[str, Type] = {}
    for slot in step.slots:
        params[slot.name] = _value(slot, env, row)
        t = slot.type if slot.type is not None else types.get(slot.what)
        if t is not None:
            ptypes[slot.name] = t
    return params, ptypes


def _consume(result: Any, step: Step, env: dict[str, Any], types: dict[str, Type]) -> int:
    """Read every row; bind the first row's columns; returns the row count."""
    n = 0
    first = None
    for row in result:
        if first is None:
            first = row
        n += 1
    if step.bind:
        fields = result.fields or []
        position = {f.name: i for i, f in enumerate(fields)}
        for name, column in step.bind:
            i = position.get(column)
            if i is None:
                raise DefinitionError(f"bind {name}: the result has no column {column!r}")
            env[name] = None if first is None else client_value(first[i])
            types[name] = fields[i].type_
    return n


# -- the compiler -----------------------------------------------------------------------------------


class _Compiler:
    def __init__(
        self, definition: WorkloadDefinition, knobs: dict[str, KnobValue], draws: DrawCache, writer_id: str
    ) -> None:
        self.definition = definition
        self.writer_id = writer_id
        self.ledger_used = False  # a versioned_key or fresh_key is drawn
        self.pg = definition.dialect is Dialect.POSTGRESQL
        self.knobs = knobs
        self.draws = draws

    def slot(self, path: str, name: str, item: Any, inline: list[Draw], bound: dict[str, str], sql: bool) -> Slot:
        """Where ``item`` (a ``$name``, a generator or a literal) comes from."""
        if is_ref(item):
            ref = ref_name(item)
            if ref in self.definition.values:
                return Slot(name, REF, ref, generator_type(self.definition.values[ref]))
            if ref in self.knobs:
                return Slot(name, REF, ref, literal_type(self.knobs[ref]))
            if ref in bound:
                return Slot(name, REF, ref, None)
            raise DefinitionError(f"{path}: {item} names no knob, value or column bound by an earlier step")
        if is_generator(item):
            kind = generator_kind(item)
            if sql and kind == "commit_timestamp":
                pending = "spanner.pending_commit_timestamp()" if self.pg else "PENDING_COMMIT_TIMESTAMP()"
                raise DefinitionError(f"{path}: commit_timestamp goes in a mutation; in DML write {pending}")
            if kind == "writer_id":
                return Slot(name, LITERAL, self.writer_id, generator_type(item))
            self.ledger_used |= kind in KEY_GENERATORS
            draw = self.draws.get(item, self.knobs)
            if draw.null_fraction == 0 and kind in ("const", "commit_timestamp"):
                return Slot(name, LITERAL, client_value(draw.draw(None, None)), generator_type(item))  # type: ignore[arg-type]
            inline.append(draw)
            return Slot(name, DRAWN, len(inline) - 1, generator_type(item))
        return Slot(name, LITERAL, item, literal_type(item) if item is not None else None)

    def rows(self, path: str, value: Any) -> int | Draw:
        if is_generator(value):
            return self.draws.get(value, self.knobs)
        n = integer(value, self.knobs, f"{path}.rows")
        if n < 0:
            raise DefinitionError(f"{path}.rows: {n} is negative")
        return n

    def step(self, path: str, step: Any, bound: dict[str, str], tx: TransactionKind, refs: set[str]) -> Step:
        kind = step_kind(step)
        inline: list[Draw] = []
        if isinstance(step, SqlStep):
            names, first = scan_pg(step.sql) if self.pg else scan(step.sql)
            mark = "$" if self.pg else "@"
            dml = is_dml(first)
            if dml and tx in (TransactionKind.SINGLE_USE, TransactionKind.READ_ONLY):
                raise DefinitionError(f"{path}: a DML statement cannot run in a {tx.value} transaction")
            if tx is TransactionKind.PARTITIONED_DML and not dml:
                raise DefinitionError(f"{path}: partitioned_dml runs a DML statement (INSERT, UPDATE or DELETE)")
            slots = []
            for name, item in step.params.items():  # first: their inline generators draw in this order
                if name not in names:
                    shown = name.removeprefix("p") if self.pg else name
                    raise DefinitionError(f"{path}.params.{name}: the statement has no {mark}{shown}")
                slots.append(self.slot(f"{path}.params.{name}", name, item, inline, bound, sql=True))
            for name in names:
                if name not in step.params and self.pg:
                    raise DefinitionError(
                        f"{path}.sql: ${name[1:]} has no value; say where it comes from in params, "
                        f"e.g. params: {{{name}: $customer}}"
                    )
                if name not in step.params:
                    slots.append(self.slot(f"{path}.sql.@{name}", name, f"${name}", inline, bound, sql=True))
            _note_refs(slots, refs, self.definition)
            if self.pg:
                for slot in slots:
                    slot.type = pg_type(slot.type)
            return Step(kind, slots, inline, sql=step.sql, dml=dml, bind=list(step.bind.items()))
        if isinstance(step, ReadStep):
            p = step.read
            slots = [self.slot(f"{path}.read.key.{c}", c, v, inline, bound, sql=False) for c, v in p.key.items()]
            _note_refs(slots, refs, self.definition)
            return Step(
                kind,
                slots,
                inline,
                table=p.table,
                columns=tuple(p.columns),
                index=p.index or "",
                limit=p.limit or 0,
                bind=list(step.bind.items()),
            )
        params: MutationParams | KeyParams = getattr(step, kind)
        rows = self.rows(f"{path}.{kind}", params.rows)
        items = params.key if isinstance(step, DeleteStep) else params.columns  # type: ignore[union-attr]
        slots = [self.slot(f"{path}.{kind}.{c}", c, v, inline, bound, sql=False) for c, v in items.items()]
        _note_refs(slots, refs, self.definition)
        return Step(kind, slots, inline, rows=rows, table=params.table, columns=tuple(items))


def _note_refs(slots: list[Slot], refs: set[str], definition: WorkloadDefinition) -> None:
    refs.update(s.what for s in slots if s.how == REF and s.what in definition.values)


class DrawCache:
    """Compiled generators, kept across recompiles: a live knob change recompiles only the
    generators whose parameters name a knob that changed (the rest keep their compiled state)."""

    def __init__(self) -> None:
        self._cache: dict[int, tuple[Any, tuple[Any, ...], Draw]] = {}

    def get(self, gen: Any, knobs: dict[str, KnobValue]) -> Draw:
        from spanload.model.workload import generator_refs

        key = tuple(knobs.get(name) for name in generator_refs(gen))
        hit = self._cache.get(id(gen))
        if hit is not None and hit[0] is gen and hit[1] == key:
            return hit[2]
        try:
            draw = compile_generator(gen, knobs)
        except ValueError as err:
            raise DefinitionError(str(err)) from None
        self._cache[id(gen)] = (gen, key, draw)
        return draw


def compile_operation(
    definition: WorkloadDefinition,
    name: str,
    knobs: dict[str, KnobValue],
    draws: DrawCache | None = None,
    ledger: WriteLedger | None = None,
    writer_id: str = "",
) -> CompiledOperation:
    """Operation ``name`` of ``definition`` with every knob's value in ``knobs``. Raises
    :class:`DefinitionError` naming ``operations.<name>...`` when it cannot run as written.
    ``ledger``: the worker's, which its versioned_key and fresh_key draw from (without one, an
    operation that draws them keeps its own, as a dry run does); ``writer_id``: what writer_id is."""
    op: Operation = definition.operations[name]
    compiler = _Compiler(definition, knobs, draws or DrawCache(), writer_id)
    bound: dict[str, str] = {}
    refs: set[str] = set()
    steps: list[Step] = []
    for i, step in enumerate(op.steps):
        steps.append(compiler.step(f"operations.{name}.steps.{i}", step, bound, op.transaction, refs))
        bound.update(getattr(step, "bind", {}))
    kinds = {v: generator_kind(definition.values[v]) for v in refs}
    if "version" in kinds.values() and sum(k in KEY_GENERATORS for k in kinds.values()) != 1:
        keys = sum(k in KEY_GENERATORS for k in kinds.values())
        raise DefinitionError(
            f"operations.{name}: a version among its values needs exactly one versioned_key or fresh_key "
            f"among them (it uses {keys})"
        )
    env: dict[str, Any] = dict(knobs)
    values: list[tuple[str, Draw]] = []
    for v, gen in definition.values.items():
        if v not in refs:
            continue
        kind = generator_kind(gen)
        if kind == "writer_id":
            env[v] = writer_id
            continue
        compiler.ledger_used |= kind in KEY_GENERATORS
        values.append((v, compiler.draws.get(gen, knobs)))
    snapshot_args: dict[str, dt.timedelta] = {}
    if op.staleness is not None:
        which, text = ("exact", op.staleness.exact) if op.staleness.exact is not None else ("max", op.staleness.max)
        assert text is not None
        ms = knob_duration_ms(definition, knobs, text)
        snapshot_args[f"{which}_staleness"] = dt.timedelta(milliseconds=ms)
    if compiler.ledger_used and ledger is None:
        ledger = WriteLedger(0, 1, 0, fresh_keys=FreshKeys("", 1))
    return CompiledOperation(
        name, op.transaction, env, values, steps, snapshot_args, ledger if compiler.ledger_used else None
    )
