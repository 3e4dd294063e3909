"""A dry run of a workload definition: each operation executed once, and what came back shown.

Reads run in a snapshot (with the operation's staleness); every other kind (read-write, single-use
commits, BatchWrite, Partitioned DML) runs its steps inside one read-write transaction that is then
rolled back, so a dry run never changes the database. Partitioned DML runs as ordinary DML there: its
row count is what the statement would touch now.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field

from spanload.model.workload import KnobValue, TransactionKind, WorkloadDefinition
from spanload.spanner.client import status_text
from spanload.workers.interp.generators import Sequence
from spanload.workers.interp.operation import CompiledOperation, compile_operation
from spanload.workers.interp.prng import stream

SHOWN_ROWS = 5
DRY_RUN_LABEL = "dry-run/"
_READS = (TransactionKind.READ_ONLY, TransactionKind.SINGLE_USE)


class StepResult(BaseModel):
    step: int
    kind: str = Field(description="sql, read, or a mutation kind")
    what: str = Field(description="the statement, or the table read or written")
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list, description=f"the first {SHOWN_ROWS} rows, as JSON")
    row_count: int = Field(0, description="rows returned, changed by DML, or written by a mutation")


class DryRunResult(BaseModel):
    operation: str
    transaction: TransactionKind
    ok: bool
    rolled_back: bool = Field(description="its writes were rolled back (nothing was committed)")
    steps: list[StepResult] = Field(default_factory=list)
    error: str | None = None


class _Rollback(Exception):
    pass


def _json(value: Any) -> Any:
    """A value as Spanner's JSON writes it: INT64 as a string (JavaScript's numbers lose past 2^53)."""
    if value is None or isinstance(value, bool | float | str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("ascii", "replace")  # the client's BYTES are base64 already
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return str(value)


class _Result:
    """A result set that keeps its first rows and its columns as it is read."""

    def __init__(self, result: Any, record: StepResult) -> None:
        self._result = result
        self._record = record

    def __iter__(self) -> Iterator[Any]:
        for row in self._result:
            if len(self._record.rows) < SHOWN_ROWS:
                self._record.rows.append([_json(v) for v in row])
            self._record.row_count += 1
            yield row
        self._record.columns = [f.name for f in (self._result.fields or [])]

    @property
    def fields(self) -> Any:
        return self._result.fields


class _Recording:
    """A snapshot or transaction that records what each step asked and got."""

    def __init__(self, txn: Any, steps: list[StepResult]) -> None:
        self._txn = txn
        self._steps = steps

    def _record(self, kind: str, what: str) -> StepResult:
        record = StepResult(step=len(self._steps), kind=kind, what=what)
        self._steps.append(record)
        return record

    def execute_sql(self, sql: str, **kwargs: Any) -> _Result:
        return _Result(self._txn.execute_sql(sql, **kwargs), self._record("sql", sql))

    def read(self, table: str, columns: Any, keyset: Any, **kwargs: Any) -> _Result:
        return _Result(self._txn.read(table, columns, keyset, **kwargs), self._record("read", table))

    def execute_update(self, sql: str, **kwargs: Any) -> int:
        count: int = self._txn.execute_update(sql, **kwargs)
        self._record("sql", sql).row_count = count
        return count

    def _mutation(self, kind: str, table: str, columns: Any, values: Any) -> None:
        getattr(self._txn, kind)(table, columns, values)
        record = self._record(kind, table)
        record.columns = list(columns)
        record.rows = [[_json(v) for v in row] for row in list(values)[:SHOWN_ROWS]]
        record.row_count = len(values)

    def insert(self, table: str, columns: Any, values: Any) -> None:
        self._mutation("insert", table, columns, values)

    def update(self, table: str, columns: Any, values: Any) -> None:
        self._mutation("update", table, columns, values)

    def insert_or_update(self, table: str, columns: Any, values: Any) -> None:
        self._mutation("insert_or_update", table, columns, values)

    def replace(self, table: str, columns: Any, values: Any) -> None:
        self._mutation("replace", table, columns, values)

    def delete(self, table: str, keyset: Any) -> None:
        self._txn.delete(table, keyset)
        self._record("delete", table).row_count = len(getattr(keyset, "keys", []) or [])


def _one(database: Any, op: CompiledOperation, drawn: Any) -> DryRunResult:
    steps: list[StepResult] = []
    rolled_back = op.transaction not in _READS or any(s.kind not in ("sql", "read") for s in op.steps)
    try:
        if not rolled_back:
            with database.snapshot(multi_use=True, **op.snapshot_args) as snapshot:
                op.run_steps(_Recording(snapshot, steps), drawn)
        else:

            def work(transaction: Any) -> None:
                steps.clear()
                op.run_steps(_Recording(transaction, steps), drawn)
                raise _Rollback

            with contextlib.suppress(_Rollback):
                database.run_in_transaction(work)
    except Exception as err:  # the client's error, or the interpreter's refusal of the statement
        return DryRunResult(
            operation=op.name, transaction=op.transaction, ok=False, rolled_back=rolled_back, steps=steps,
            error=status_text(err),
        )  # fmt: skip
    return DryRunResult(operation=op.name, transaction=op.transaction, ok=True, rolled_back=rolled_back, steps=steps)


def dry_run(
    database: Any, definition: WorkloadDefinition, knobs: dict[str, KnobValue], seed: int = 0
) -> list[DryRunResult]:
    """Each operation of ``definition`` executed once on ``database``, writes rolled back."""
    out: list[DryRunResult] = []
    for name in definition.operations:
        try:
            op = compile_operation(definition, name, knobs)
        except ValueError as err:
            out.append(
                DryRunResult(
                    operation=name,
                    transaction=definition.operations[name].transaction,
                    ok=False,
                    rolled_back=False,
                    error=str(err),
                )
            )
            continue
        drawn = op.draw(stream(seed, DRY_RUN_LABEL + name, 0), Sequence())
        out.append(_one(database, op, drawn))
    return out
