"""The preload phase of a definition's ``load`` (workloads/README.md, "Load").

The row numbers of every table are concatenated in the order written (table 0's ``[0, rows_0)``,
then table 1's...); the supervisor splits ``[0, total)`` between the workers, and
:func:`spanload.workers.preload.run_preload` drives this module's ``write(lo, hi)`` and
``count(lo, hi)`` over a worker's share. Row ``i`` of table ``T`` draws from
``stream(seed, "load/T", i)``: the values it refers to first (in ``values`` order), then its inline
generators in the order its columns are written; a ``sequence`` takes ``start + step * i``. So a
load is the same whichever worker writes which rows, and rewriting a row (a retry, a resumed load)
writes the same row (``insert_or_update``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.cloud.spanner_v1 import param_types

from spanload.model.workload import Dialect, KnobValue, WorkloadDefinition, generator_kind, is_ref, ref_name
from spanload.spanner import deadline
from spanload.workers.interp.generators import Draw, Sequence
from spanload.workers.interp.operation import DRAWN, LITERAL, REF, DrawCache, Slot, client_value, is_generator
from spanload.workers.interp.prng import label_base, load_label, stream_at

MAX_MUTATIONS = 20_000  # cells a commit at most (Spanner's limit is 80,000)
MAX_BATCH_ROWS = 1000

Database = Any


@dataclass
class TableLoad:
    table: str
    offset: int  # its first row's number in the concatenation
    rows: int
    columns: tuple[str, ...]
    slots: list[Slot]
    values: list[tuple[str, Draw]]  # the values its columns refer to, in ``values`` order
    inline: list[Draw]
    base: int  # label_base(seed, "load/<table>")
    knobs: dict[str, KnobValue]
    sequence_column: tuple[str, int, int] | None  # (column, start, step) of its first inline sequence

    def row(self, i: int, seq: Sequence) -> tuple[Any, ...]:
        rng = stream_at(self.base, i)
        env: dict[str, Any] = dict(self.knobs)
        for name, gen in self.values:
            env[name] = client_value(gen.draw(rng, seq, i))
        drawn = [client_value(g.draw(rng, seq, i)) for g in self.inline]
        out = []
        for slot in self.slots:
            out.append(env[slot.what] if slot.how == REF else drawn[slot.what] if slot.how == DRAWN else slot.what)
        return tuple(out)


def tables(definition: WorkloadDefinition, knobs: dict[str, KnobValue], seed: int) -> list[TableLoad]:
    """Each table of the load, in the order written, with its place in the concatenation."""
    draws = DrawCache()
    out: list[TableLoad] = []
    offset = 0
    for table, load in definition.load.items():
        rows = int(definition.numeric_knob(load.rows, knobs))
        slots: list[Slot] = []
        inline: list[Draw] = []
        refs: set[str] = set()
        sequence_column: tuple[str, int, int] | None = None
        for column, item in load.columns.items():
            if is_ref(item):
                name = ref_name(str(item))
                refs.add(name)
                slots.append(Slot(column, REF, name, None))
            elif is_generator(item):
                draw = draws.get(item, knobs)
                if sequence_column is None and generator_kind(item) == "sequence" and draw.null_fraction == 0:
                    p = item.sequence  # type: ignore[union-attr]
                    sequence_column = (
                        column,
                        int(definition.numeric_knob(p.start, knobs)),
                        int(definition.numeric_knob(p.step, knobs)),
                    )
                inline.append(draw)
                slots.append(Slot(column, DRAWN, len(inline) - 1, None))
            else:
                slots.append(Slot(column, LITERAL, item, None))
        values = [(v, draws.get(gen, knobs)) for v, gen in definition.values.items() if v in refs]
        out.append(
            TableLoad(
                table=table,
                offset=offset,
                rows=rows,
                columns=tuple(load.columns),
                slots=slots,
                values=values,
                inline=inline,
                base=label_base(seed, load_label(table)),
                knobs=knobs,
                sequence_column=sequence_column,
            )
        )
        offset += rows
    return out


def _segments(loads: list[TableLoad], lo: int, hi: int) -> list[tuple[TableLoad, int, int]]:
    """``[lo, hi)`` of the concatenation as (table, first row, end row) pieces."""
    out = []
    for load in loads:
        a, b = max(lo, load.offset), min(hi, load.offset + load.rows)
        if a < b:
            out.append((load, a - load.offset, b - load.offset))
    return out


def batch_rows(loads: list[TableLoad]) -> int:
    widest = max((len(load.columns) for load in loads), default=1)
    return max(1, min(MAX_BATCH_ROWS, MAX_MUTATIONS // widest))


def loader_functions(
    definition: WorkloadDefinition, knobs: dict[str, KnobValue], seed: int, timeout_s: Callable[[], float]
) -> tuple[Callable[[Database, int, int], None], Callable[[Database, int, int | None], int], int]:
    """``(write, count, batch_rows)`` of :class:`spanload.workers.preload.Loader` for a definition."""
    loads = tables(definition, knobs, seed)
    seq = Sequence()

    def write(database: Database, lo: int, hi: int) -> None:
        timeout = timeout_s()
        with deadline.operation(timeout), database.batch(timeout_secs=timeout) as batch:
            for load, a, b in _segments(loads, lo, hi):
                batch.insert_or_update(load.table, load.columns, [load.row(i, seq) for i in range(a, b)])

    def count_sql(database: Database, sql: str, params: dict[str, int] | None = None) -> int:
        types = {k: param_types.INT64 for k in params} if params else None
        with deadline.operation(timeout_s()), database.snapshot() as snapshot:
            rows = list(snapshot.execute_sql(sql, params=params, param_types=types))
        return int(rows[0][0])

    def count(database: Database, lo: int, hi: int | None) -> int:
        if hi is None:  # every table: its rows present, up to those wanted
            return sum(min(count_sql(database, f"SELECT COUNT(*) FROM {load.table}"), load.rows) for load in loads)
        present = 0
        for load, a, b in _segments(loads, lo, hi):
            if count_sql(database, f"SELECT COUNT(*) FROM {load.table}") >= load.rows:
                present += b - a
            elif load.sequence_column is not None:  # the rows of [a, b) are those with these sequence values
                column, start, step = load.sequence_column
                first, last = sorted((start + step * a, start + step * (b - 1)))
                if definition.dialect is Dialect.POSTGRESQL:  # $1, $2 go as p1, p2
                    sql = f"SELECT COUNT(*) FROM {load.table} WHERE {column} BETWEEN $1 AND $2"
                    params = {"p1": first, "p2": last}
                else:
                    sql = f"SELECT COUNT(*) FROM {load.table} WHERE {column} BETWEEN @first AND @last"
                    params = {"first": first, "last": last}
                present += min(b - a, count_sql(database, sql, params))
        return present  # without a sequence column a part-loaded table is written again (the same rows)

    return write, count, batch_rows(loads)
