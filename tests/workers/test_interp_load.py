"""A definition's load without a database: row numbers concatenated over the tables in the order
written, rows drawn from stream(seed, "load/<T>", i), batches that span two tables, and the counts
that make a load resumable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spanload.model.workload_file import parse_definition, validate_data
from spanload.workers.interp.load import loader_functions
from spanload.workers.interp.operation import compile_operation
from spanload.workers.interp.prng import stream
from tests.workers.test_interp_operation import Ctx

SEED = 5
DEFINITION = validate_data(
    {
        "name": "l",
        "knobs": {"people": {"default": 3}},
        "values": {"score": {"uniform": {"min": 0, "max": 99}}},
        "load": {
            "People": {
                "rows": "$people",
                "columns": {
                    "Id": {"sequence": {"start": 1}},
                    "Score": "$score",
                    "Tag": {"uniform": {"min": 1, "max": 9}},
                },
            },
            "Events": {"rows": 5, "columns": {"Id": {"sequence": {"start": 100, "step": -10}}, "Kind": "x"}},
        },
        "operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
    }
)


class Batch:
    def __init__(self, calls: list[Any]) -> None:
        self.calls = calls

    def __enter__(self) -> Batch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.calls.append("commit")

    def insert_or_update(self, table: str, columns: Any, rows: Any) -> None:
        self.calls.append((table, tuple(columns), list(rows)))


class Database:
    def __init__(self, counts: dict[str, int]) -> None:
        self.calls: list[Any] = []
        self.counts = counts

    def batch(self, **_: Any) -> Batch:
        return Batch(self.calls)

    def snapshot(self) -> Any:
        db = self

        class Snapshot:
            def execute_sql(self, sql: str, params: Any = None, param_types: Any = None) -> list[list[int]]:
                db.calls.append((sql, params))
                return [[db.counts[sql.split("FROM ")[1].split()[0] + (" range" if params else "")]]]

        return Ctx(Snapshot())


def people_row(i: int) -> tuple[Any, ...]:
    g = stream(SEED, "load/People", i)
    score = g.between(0, 99)  # the value the row refers to, first
    return (i + 1, score, g.between(1, 9))


def test_one_batch_may_span_two_tables_and_each_row_draws_from_its_own_stream() -> None:
    write, _, batch_rows = loader_functions(DEFINITION, DEFINITION.knob_values({}), SEED, lambda: 60.0)
    assert batch_rows == 1000  # 20,000 cells over 3 columns is more than 1,000 rows
    db = Database({})
    write(db, 1, 5)  # People rows 1, 2 and Events rows 0, 1 of the concatenation [People 0..2][Events 0..4]
    assert db.calls == [
        ("People", ("Id", "Score", "Tag"), [people_row(1), people_row(2)]),
        ("Events", ("Id", "Kind"), [(100, "x"), (90, "x")]),
        "commit",
    ]


def test_counts_make_the_load_resumable() -> None:
    _, count, _ = loader_functions(DEFINITION, DEFINITION.knob_values({}), SEED, lambda: 60.0)
    # People holds more than it wants (3), Events 2 of 5: present = 3 + 2
    db = Database({"People": 7, "Events": 2, "Events range": 1})
    assert count(db, 0, None) == 5
    # rows [3, 6) are Events 0..2: the table is short, so its rows are counted by their sequence values
    db.calls.clear()
    assert count(db, 3, 6) == 1
    assert db.calls[-1] == ("SELECT COUNT(*) FROM Events WHERE Id BETWEEN @first AND @last", {"first": 80, "last": 100})
    assert count(db, 0, 3) == 3  # People is full: its part of any batch is present


def test_every_definition_under_workloads_compiles_in_the_interpreter() -> None:
    files = sorted((Path(__file__).parents[2] / "workloads").glob("*.yaml"))
    assert len(files) >= 2
    for path in files:
        definition = parse_definition(path.read_text(), path.name)
        knobs = definition.knob_values({})
        for op in definition.operations:
            compile_operation(definition, op, knobs)
        loader_functions(definition, knobs, SEED, lambda: 60.0)
