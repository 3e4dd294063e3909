"""Versioned writes in a definition (issue 22), without a database: what versioned_key, fresh_key,
version and writer_id draw, the per-worker ledger's bookkeeping of an execution that commits, fails
or ends of unknown outcome, and the model's refusals that name the path."""

from __future__ import annotations

from typing import Any

import pytest
from google.api_core import exceptions as gexc

from spanload.model.config import RunConfig
from spanload.model.protocol import Counter
from spanload.model.workload_file import DefinitionInvalid, validate_data
from spanload.workers.interp.generators import Sequence
from spanload.workers.interp.ledger import FreshKeys
from spanload.workers.interp.operation import DefinitionError, compile_operation
from spanload.workers.interp.prng import stream
from spanload.workers.interp.runner import Interpreter
from spanload.workers.stats import WorkerStats
from tests.workers.test_interp_operation import Ctx, FakeDatabase, FakeTxn

RUN = "run-1"
KEY = {"versioned_key": {"max": "$keys"}}
ROW = {"Version": "version", "WriterId": "writer_id"}


def definition(keys: int = 10, rows: int = 3) -> dict[str, Any]:
    return {
        "name": "v",
        "knobs": {"keys": {"default": keys, "min": 1, "max": 100000}},
        "values": {"k": KEY, "v": "version", "w": "writer_id"},
        "operations": {
            "upsert": {
                "rate": 1,
                "transaction": "single_use",
                "steps": [
                    {
                        "insert": {
                            "table": "T",
                            "rows": rows,
                            "columns": {
                                "Version": "version",
                                "Id": {"versioned_key": {"max": "$keys"}},
                                "W": "writer_id",
                            },
                        }
                    }
                ],
            },
            "fresh": {
                "rate": 1,
                "transaction": "single_use",
                "steps": [{"insert": {"table": "T", "rows": 2, "columns": {"Id": "fresh_key", **ROW}}}],
            },
            "by_dml": {
                "rate": 1,
                "transaction": "read_write",
                "steps": [{"sql": "UPDATE T SET Version = @v, W = @w WHERE Id = @k"}],
            },
        },
    }


def interpreter(data: dict[str, Any], worker: int = 1, workers: int = 3) -> tuple[Interpreter, WorkerStats]:
    config = RunConfig.model_validate({"workload": "definition", "definition": data, "seed": 7})
    stats = WorkerStats()
    assert config.definition is not None
    return Interpreter(lambda: FakeDatabase(), config.definition, config, stats, worker, workers, RUN), stats


def rows_of(interp: Interpreter, op: str, n: int) -> list[list[Any]]:
    plan = interp.operations[op].plan
    _, per_step = plan.draw(stream(7, f"op/{op}/1", n), Sequence(1, 3))
    return per_step[0]


def test_versioned_keys_are_the_workers_own_distinct_in_an_execution_and_count_their_versions() -> None:
    interp, _ = interpreter(definition())
    owned = {1, 4, 7}  # worker 1 of 3, keys [0, 10): slots = ceil((10 - 1) / 3) = 3, key = slot * 3 + 1
    plan = interp.operations["upsert"].plan
    writes: list[tuple[int, int]] = []
    (rows,) = plan.draw(stream(7, "op/upsert/1", 0), Sequence(1, 3), writes)[1]
    # the row's draws in the order written: Version (the version of the key drawn in its row), Id
    assert {r[1] for r in rows} == owned and [r[0] for r in rows] == [1, 1, 1]
    assert sorted(writes) == sorted((r[1], 1) for r in rows)
    assert plan.steps[0].slots[2].what == "run-1/1"  # W: writer_id, the same in every row
    # every owned key is in flight: a second execution finds none, with the legacy sentence
    with pytest.raises(RuntimeError, match="no free key among 3 owned keys"):
        plan.draw(stream(7, "op/upsert/1", 1), Sequence(1, 3), [])
    interp.ledger.committed(writes)
    second: list[tuple[int, int]] = []
    plan.draw(stream(7, "op/upsert/1", 2), Sequence(1, 3), second)
    assert sorted(second) == [(1, 2), (4, 2), (7, 2)]


def test_a_version_in_values_is_the_version_of_the_key_in_values() -> None:
    interp, _ = interpreter(definition(keys=1000))
    plan = interp.operations["by_dml"].plan
    writes: list[tuple[int, int]] = []
    env, _ = plan.draw(stream(7, "op/by_dml/1", 0), Sequence(1, 3), writes)
    assert writes == [(env["k"], 1)] and env["v"] == 1 and env["w"] == "run-1/1" and env["k"] % 3 == 1
    assert env["k"] < 1000


def test_fresh_keys_are_the_workers_numbered_new_keys_at_version_1() -> None:
    interp, _ = interpreter(definition())
    fresh = FreshKeys(RUN, 3)
    first, second = rows_of(interp, "fresh", 0), rows_of(interp, "fresh", 1)
    assert [r[0] for r in first + second] == [fresh.key(1, n) for n in range(4)]
    assert {r[1] for r in first + second} == {1}


def execute(interp: Interpreter, op: str, error: Exception | None) -> None:
    load = interp.operations[op]

    class Failing(FakeDatabase):
        def batch(self, **_: Any) -> Any:
            if error is not None:
                raise error
            return Ctx(FakeTxn(self.calls))

    load._database = lambda: Failing()  # type: ignore[method-assign]
    load._execute(0.0, 0.0)


def test_the_ledger_keeps_commits_releases_failures_and_leaves_unknown_outcomes_out() -> None:
    interp, stats = interpreter(definition(keys=30000, rows=2))
    execute(interp, "upsert", None)
    execute(interp, "upsert", gexc.DeadlineExceeded("slow"))  # may have committed
    execute(interp, "upsert", gexc.InvalidArgument("bad"))  # did not commit
    execute(interp, "fresh", None)
    execute(interp, "fresh", gexc.ServiceUnavailable("gone"))
    execute(interp, "fresh", gexc.InvalidArgument("bad"))
    message = interp.ledger.message(interp.writer_id)
    assert message.worker == 1 and message.writer_id == "run-1/1"
    assert len(message.ledger) == 2 and all(v == 1 and c == 1 for _, v, c in message.ledger)
    assert len(message.uncertain_keys) == 2 and not set(message.uncertain_keys) & {k for k, _, _ in message.ledger}
    assert message.fresh_committed == [(0, 2)] and message.fresh_uncertain == [(2, 4)]  # numbers [0, 2), [2, 4)
    # the released keys are free again: 2 committed, 2 uncertain, 2 released of the in-flight ones
    assert not interp.ledger._in_flight
    counters, _, _ = stats.take()
    assert counters[Counter.TRANSACTIONS] == 2 and counters[Counter.MUTATIONS] == 4
    assert interp.versioned


def test_a_key_space_smaller_than_the_draws_is_an_operation_error_not_a_crash() -> None:
    interp, stats = interpreter(definition(keys=4, rows=3))  # worker 1 of 3 owns 1 key
    execute(interp, "upsert", None)
    counters, errors, _ = stats.take()
    assert counters.get("op.upsert.done", 0) == 0 and sum(errors.values()) == 1
    assert not interp.ledger._in_flight  # the key it had drawn first is released


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (
            lambda d: d["operations"]["upsert"]["steps"][0]["insert"]["columns"].pop("Id"),
            "operations.upsert.steps.0.insert.Version: version needs exactly one versioned_key or "
            "fresh_key beside it (0 among the operation's values)",
        ),
        (
            lambda d: d["operations"]["upsert"]["steps"][0]["insert"]["columns"].update(Id2="fresh_key"),
            "operations.upsert.steps.0.insert.Version: version needs exactly one versioned_key or "
            "fresh_key beside it (2 in this row)",
        ),
        (
            lambda d: (
                d["values"].update(k2="fresh_key")
                or d["operations"]["by_dml"]["steps"][0].update(params={"k": "$k", "k2": "$k2", "v": "$v"})
            ),
            "operations.by_dml: $v is a version, which needs exactly one versioned_key or fresh_key among the "
            "values the operation uses (it uses 2)",
        ),
        (
            lambda d: d.update(load={"T": {"rows": 5, "columns": {"Id": "fresh_key"}}}),
            "load.T.columns.Id: fresh_key is drawn by an operation, not in a load",
        ),
    ],
)
def test_version_without_exactly_one_key_beside_it_is_refused_naming_its_path(change: Any, where: str) -> None:
    data = definition()
    change(data)
    with pytest.raises(DefinitionInvalid) as info:
        validate_data(data)
    assert where in str(info.value)


def test_a_version_the_sql_names_needs_one_key_among_the_values_it_names() -> None:
    """The model cannot read a statement's @names; the interpreter (and so validation) can."""
    data = definition()
    data["values"]["k2"] = "fresh_key"
    data["operations"]["by_dml"]["steps"][0]["sql"] = "UPDATE T SET V = @v WHERE Id IN (@k, @k2)"
    d = validate_data(data)
    with pytest.raises(DefinitionError, match=r"operations\.by_dml: a version among its values needs exactly one"):
        compile_operation(d, "by_dml", d.knob_values({}))


def test_versioned_key_max_follows_a_live_knob_change() -> None:
    interp, _ = interpreter(definition())
    config = RunConfig.model_validate(
        {"workload": "definition", "definition": definition(), "seed": 7, "knobs": {"keys": 100}}
    )
    interp.apply(config)
    drawn: set[int] = set()
    for n in range(20):
        writes: list[tuple[int, int]] = []
        interp.operations["upsert"].plan.draw(stream(7, "op/upsert/1", n), Sequence(1, 3), writes)
        interp.ledger.committed(writes)
        drawn.update(k for k, _ in writes)
    assert {k % 3 for k in drawn} == {1} and max(drawn) < 100 and max(drawn) >= 10  # owned, in the new space
