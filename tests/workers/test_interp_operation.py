"""The interpreter's compile step and one execution against a fake client: which values an
operation draws and in what order (checked against SplitMix64 itself, which the golden file pins),
its statements' parameters and their types, binds, and the client call of each transaction kind."""

from __future__ import annotations

from typing import Any

import pytest
from google.cloud.spanner_v1 import COMMIT_TIMESTAMP, TypeCode, param_types

from spanload.model.workload import WorkloadDefinition
from spanload.model.workload_file import validate_data
from spanload.workers.interp.generators import Sequence
from spanload.workers.interp.operation import DefinitionError, DrawCache, Executed, compile_operation
from spanload.workers.interp.prng import stream
from spanload.workers.interp.sql import scan

SEED = 77


def definition(operations: dict[str, Any], **more: Any) -> WorkloadDefinition:
    return validate_data(
        {
            "name": "t",
            "knobs": {"top": {"default": 500}, "rate": {"default": 2.5}, "label": {"default": "x"}},
            "values": {
                "a": {"uniform": {"min": 1, "max": 10}},
                "b": {"uniform": {"min": 100, "max": "$top"}},
                "unused": {"uniform": {"min": 0, "max": 1}},
                "c": {"string": {"length": 4}},
            },
            "operations": operations,
            **more,
        }
    )


def test_scan_finds_parameters_outside_literals_comments_and_hints() -> None:
    sql = """@{USE_ADDITIONAL_PARALLELISM=TRUE} SELECT a FROM T@{FORCE_INDEX=Ix}
      WHERE x = @one AND y = '@quoted' AND z = "@dq" AND w = r'\\@raw' AND `@col` = @two -- @comment
      /* @block */ AND v IN UNNEST(@one) AND q = '''@triple''' # @hash
      AND s = @@sysvar AND t = @three_3"""
    assert scan(sql) == (["one", "two", "three_3"], "SELECT")
    assert scan("  (SELECT 1)")[1] == "SELECT"
    assert scan("-- c\nUPDATE T SET a = @a WHERE TRUE")[1] == "UPDATE"
    assert scan("WITH x AS (SELECT 1) SELECT * FROM x")[1] == "WITH"


def test_an_execution_draws_its_values_in_values_order_then_each_step_row_by_row() -> None:
    d = definition(
        {
            "op": {
                "rate": 1,
                "transaction": "read_write",
                "steps": [
                    # @b before @a in the text: values still draw a then b (values order); c is not referenced
                    {
                        "sql": "SELECT @b, @a, @p, @q FROM T",
                        "params": {"q": {"uniform": {"min": 0, "max": 9}}, "p": {"uniform": {"min": 0, "max": 99}}},
                    },
                    {
                        "insert": {
                            "table": "T",
                            "rows": {"uniform": {"min": 2, "max": 3}},
                            "columns": {
                                "K": {"uniform": {"min": 1, "max": 1000}},
                                "A": "$a",
                                "S": {"uniform": {"min": 5, "max": 6}},
                                "L": 7,
                                "At": "commit_timestamp",
                            },
                        }
                    },
                ],
            }
        }
    )
    plan = compile_operation(d, "op", d.knob_values({}))
    for n in range(20):
        env, steps = plan.draw(stream(SEED, "op/op/1", n), Sequence(1, 2))
        g = stream(SEED, "op/op/1", n)  # the README's order, drawn by hand
        a, b = g.between(1, 10), g.between(100, 500)
        q, p = g.between(0, 9), g.between(0, 99)
        rows = g.between(2, 3)
        inserted = [[g.between(1, 1000), g.between(5, 6)] for _ in range(rows)]
        assert (env["a"], env["b"]) == (a, b) and "unused" not in env and "c" not in env
        assert steps == [[[q, p]], inserted]


def test_knobs_size_generators_and_a_changed_knob_recompiles_only_its_generators() -> None:
    d = definition({"op": {"rate": "$rate", "steps": [{"sql": "SELECT @a, @b, @top, @label"}]}})
    draws = DrawCache()
    before = compile_operation(d, "op", d.knob_values({}), draws)
    after = compile_operation(d, "op", d.knob_values({"top": 100}), draws)
    (a0, b0), (a1, b1) = ([g for _, g in plan._values] for plan in (before, after))
    assert a0 is a1 and b0 is not b1  # b's max is $top
    env, _ = after.draw(stream(SEED, "x", 0), Sequence())
    g = stream(SEED, "x", 0)
    assert (env["a"], env["b"], env["top"], env["label"]) == (g.between(1, 10), g.between(100, 100), 100, "x")


class FakeResult:
    def __init__(self, rows: list[list[Any]], fields: list[tuple[str, Any]]) -> None:
        self._rows = rows
        self.fields = [type("F", (), {"name": n, "type_": t})() for n, t in fields]

    def __iter__(self) -> Any:
        return iter(self._rows)


class FakeTxn:
    """A transaction, snapshot, batch or mutation group: records every call."""

    def __init__(self, calls: list[tuple[Any, ...]]) -> None:
        self.calls = calls

    def execute_sql(self, sql: str, params: Any = None, param_types: Any = None, **_: Any) -> FakeResult:
        self.calls.append(("execute_sql", sql, params, param_types))
        return FakeResult([[7, "x"], [8, "y"]], [("Qty", param_types_int64()), ("Name", param_types_string())])

    def execute_update(self, sql: str, params: Any = None, param_types: Any = None, **_: Any) -> int:
        self.calls.append(("execute_update", sql, params, param_types))
        return 1

    def read(self, table: str, columns: Any, keyset: Any, index: str = "", limit: int = 0, **_: Any) -> FakeResult:
        self.calls.append(("read", table, tuple(columns), [list(k) for k in keyset.keys], index, limit))
        return FakeResult([[1]], [("Name", param_types_string())])

    def insert(self, table: str, columns: Any, values: Any) -> None:
        self.calls.append(("insert", table, tuple(columns), list(values)))

    def delete(self, table: str, keyset: Any) -> None:
        self.calls.append(("delete", table, [list(k) for k in keyset.keys]))


def param_types_int64() -> Any:
    return param_types.INT64


def param_types_string() -> Any:
    return param_types.STRING


class FakeDatabase:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def run_in_transaction(self, work: Any, **_: Any) -> Any:
        self.calls.append(("run_in_transaction",))
        return work(FakeTxn(self.calls))

    def snapshot(self, **kwargs: Any) -> Any:
        self.calls.append(("snapshot", kwargs))
        return Ctx(FakeTxn(self.calls))

    def batch(self, **_: Any) -> Any:
        self.calls.append(("batch",))
        return Ctx(FakeTxn(self.calls))

    def mutation_groups(self) -> Any:
        calls = self.calls
        calls.append(("mutation_groups",))

        class Groups:
            def group(self) -> FakeTxn:
                return FakeTxn(calls)

            def batch_write(self) -> list[Any]:
                calls.append(("batch_write",))
                return [type("R", (), {"status": type("S", (), {"code": 0, "message": ""})()})()]

        return Ctx(Groups())

    def execute_partitioned_dml(self, sql: str, params: Any = None, param_types: Any = None) -> int:
        self.calls.append(("execute_partitioned_dml", sql, params, param_types))
        return 10


class Ctx:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __enter__(self) -> Any:
        return self.inner

    def __exit__(self, *exc: object) -> None:
        return None


def run_once(d: WorkloadDefinition, op: str) -> tuple[list[tuple[Any, ...]], int, dict[str, Any]]:
    plan = compile_operation(d, op, d.knob_values({}))
    db = FakeDatabase()
    drawn = plan.draw(stream(SEED, f"op/{op}/0", 0), Sequence())
    rows, _ = plan.execute(db, drawn)
    return db.calls, rows, drawn[0]


def test_read_write_binds_the_first_row_and_types_params_by_generator_knob_and_result_metadata() -> None:
    d = definition(
        {
            "op": {
                "rate": 1,
                "steps": [
                    {"sql": "SELECT Qty, Name FROM T WHERE K = @a", "bind": {"qty": "Qty", "nm": "Name"}},
                    {"sql": "UPDATE T SET Qty = @qty, Name = @nm, F = @rate, L = @label, S = @c WHERE K = @a"},
                    {"insert": {"table": "Log", "columns": {"K": "$a", "Q": "$qty", "At": "commit_timestamp"}}},
                ],
            }
        }
    )
    calls, rows, env = run_once(d, "op")
    assert [c[0] for c in calls] == ["run_in_transaction", "execute_sql", "execute_update", "insert"]
    _, _, params, types = calls[2]
    assert params == {"qty": 7, "nm": "x", "rate": 2.5, "label": "x", "c": env["c"], "a": env["a"]}
    codes = {k: TypeCode(t.code).name for k, t in types.items()}
    assert codes == {"qty": "INT64", "nm": "STRING", "rate": "FLOAT64", "label": "STRING", "c": "STRING", "a": "INT64"}
    assert calls[3] == ("insert", "Log", ("K", "Q", "At"), [(env["a"], 7, COMMIT_TIMESTAMP)])
    assert rows == 2 + 1 + 1  # two rows read, one updated, one inserted


def test_an_execution_counts_as_written_its_mutation_rows_and_the_rows_its_dml_changed() -> None:
    """The run's ``mutations``: what the execution wrote, as the Go worker counts it (x.written); the
    rows it read are not in it."""
    d = definition(
        {
            "op": {
                "rate": 1,
                "steps": [
                    {"sql": "SELECT Qty, Name FROM T WHERE K = @a", "bind": {"qty": "Qty", "nm": "Name"}},
                    {"sql": "UPDATE T SET Qty = @qty WHERE K = @a"},
                    {"insert": {"table": "Log", "rows": 3, "columns": {"K": "$a", "At": "commit_timestamp"}}},
                ],
            },
            "pdml": {"rate": 1, "transaction": "partitioned_dml", "steps": [{"sql": "UPDATE T SET X = @b WHERE TRUE"}]},
            "reads": {"rate": 1, "transaction": "read_only", "steps": [{"sql": "SELECT 1"}]},
        }
    )

    def executed(op: str) -> Executed:
        plan = compile_operation(d, op, d.knob_values({}))
        return plan.execute(FakeDatabase(), plan.draw(stream(SEED, f"op/{op}/0", 0), Sequence()))

    # two rows read (the fake's), one updated (its execute_update's count), three inserted
    assert executed("op") == Executed(rows=2 + 1 + 3, written=1 + 3)
    assert executed("pdml") == Executed(rows=10, written=10)
    assert executed("reads") == Executed(rows=2, written=0)


def test_each_transaction_kind_uses_its_client_call() -> None:
    d = definition(
        {
            "single_read": {
                "rate": 1,
                "transaction": "single_use",
                "staleness": {"max": "2s"},
                "steps": [{"read": {"table": "T", "index": "Ix", "key": {"K": "$a"}, "columns": ["Name"], "limit": 3}}],
            },
            "single_write": {
                "rate": 1,
                "transaction": "single_use",
                "steps": [{"delete": {"table": "T", "key": {"K": {"uniform": {"min": 1, "max": 1}}}, "rows": 2}}],
            },
            "stale": {
                "rate": 1,
                "transaction": "read_only",
                "staleness": {"exact": "1500ms"},
                "steps": [{"sql": "SELECT 1"}, {"sql": "SELECT 2"}],
            },
            "groups": {
                "rate": 1,
                "transaction": "batch_write",
                "steps": [{"insert": {"table": "T", "rows": 3, "columns": {"K": "$a"}}}],
            },
            "pdml": {"rate": 1, "transaction": "partitioned_dml", "steps": [{"sql": "UPDATE T SET X = @b WHERE TRUE"}]},
        }
    )
    import datetime as dt

    calls, rows, env = run_once(d, "single_read")
    assert calls == [
        ("snapshot", {"max_staleness": dt.timedelta(seconds=2)}),
        ("read", "T", ("Name",), [[env["a"]]], "Ix", 3),
    ]
    calls, rows, _ = run_once(d, "single_write")
    assert calls == [("batch",), ("delete", "T", [[1], [1]])] and rows == 2
    calls, rows, _ = run_once(d, "stale")
    assert [c[0] for c in calls] == ["snapshot", "execute_sql", "execute_sql"] and rows == 4
    assert calls[0][1] == {"multi_use": True, "exact_staleness": dt.timedelta(milliseconds=1500)}
    calls, rows, env = run_once(d, "groups")
    assert calls == [("mutation_groups",), ("insert", "T", ("K",), [(env["a"],)] * 3), ("batch_write",)] and rows == 3
    calls, rows, env = run_once(d, "pdml")
    assert calls == [
        ("execute_partitioned_dml", "UPDATE T SET X = @b WHERE TRUE", {"b": env["b"]}, {"b": param_types.INT64})
    ]
    assert rows == 10


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            {"rate": 1, "transaction": "read_only", "steps": [{"sql": "UPDATE T SET A = 1 WHERE TRUE"}]},
            "cannot run in a read_only",
        ),
        ({"rate": 1, "transaction": "partitioned_dml", "steps": [{"sql": "SELECT 1"}]}, "runs a DML statement"),
        ({"rate": 1, "steps": [{"sql": "SELECT @nobody"}]}, "@nobody"),
        ({"rate": 1, "steps": [{"sql": "SELECT 1", "params": {"p": 1}}]}, "has no @p"),
        (
            {"rate": 1, "steps": [{"sql": "UPDATE T SET At = @t WHERE TRUE", "params": {"t": "commit_timestamp"}}]},
            "PENDING_COMMIT_TIMESTAMP",
        ),
    ],
)
def test_what_cannot_run_as_written_is_refused_at_compile_naming_the_place(op: dict[str, Any], message: str) -> None:
    d = definition({"op": op})
    with pytest.raises(DefinitionError, match=message) as err:
        compile_operation(d, "op", d.knob_values({}))
    assert "operations.op.steps.0" in str(err.value)


def test_a_postgresql_statements_dollar_parameters_are_p_n_and_typed_as_postgresql() -> None:
    # Spanner's PG dialect: $1, $2 travel as parameters p1, p2; numeric is NUMERIC annotated PG_NUMERIC.
    d = definition(
        {
            "op": {
                "rate": 1,
                "steps": [{"sql": "UPDATE t SET x = x - $2 WHERE k = $1", "params": {"p1": "$a", "p2": 1.5}}],
            }
        },
        dialect="postgresql",
        values={"a": {"uniform": {"min": 1, "max": 10}}, "d": {"decimal": {"min": 1, "max": 2, "scale": 2}}},
    )
    (step,) = compile_operation(d, "op", d.knob_values({})).steps
    assert [(s.name, s.type) for s in step.slots] == [("p1", param_types.INT64), ("p2", param_types.FLOAT64)]
    assert step.dml
    numeric = definition(
        {"op": {"rate": 1, "steps": [{"sql": "SELECT $1", "params": {"p1": "$d"}}]}},
        dialect="postgresql",
        values={"d": {"decimal": {"min": 1, "max": 2, "scale": 2}}},
    )
    (step,) = compile_operation(numeric, "op", numeric.knob_values({})).steps
    assert step.slots[0].type == param_types.PG_NUMERIC
    missing = definition({"op": {"rate": 1, "steps": [{"sql": "SELECT $1"}]}}, dialect="postgresql")
    with pytest.raises(DefinitionError, match=r"operations.op.steps.0.sql: \$1 has no value.*params: \{p1: "):
        compile_operation(missing, "op", missing.knob_values({}))
