"""The built-in workloads' definition files (workloads/change_watcher.yaml, write_benchmark.yaml,
session_pool.yaml, participants.yaml) and their PostgreSQL twins (<name>_pg.yaml, issue 24: "each
built-in report workload ships a PG twin"): each validates against a scratch database built from
its DDL (a PostgreSQL-dialect one for a twin), every statement analysed by the local Spanner, and its
dry run executes every operation once (the ones a run leaves off too: the DML and batch-insert
modes, the readers) without an error. A twin keeps its original's knobs and operations exactly, so
the two cannot drift apart."""

from __future__ import annotations

import pytest

from spanload.engine.workload_check import check
from spanload.model.builtin_convert import builtin_definition
from spanload.model.workload import Dialect
from tests.engine.conftest import LocalTarget

BUILTINS = {
    "change_watcher": ["write", "write_dml", "batch_insert", "point_read", "recent_changes"],
    "write_benchmark": ["write", "write_dml", "batch_insert", "point_read"],
    "session_pool": ["leaderboard", "insert_score"],
    "participants": ["batch_insert"],
}


TWINS = {f"{name}_pg": name for name in BUILTINS}


@pytest.mark.parametrize("name", sorted(BUILTINS) + sorted(TWINS))
def test_a_builtin_definition_validates_and_runs_each_operation_once(local_spanner: LocalTarget, name: str) -> None:
    definition = builtin_definition(name)
    assert definition.dialect is (Dialect.POSTGRESQL if name in TWINS else Dialect.GOOGLESQL)
    result = check(definition, local_spanner.address, dry_run=definition.knob_values({}))
    assert [p.message for p in result.problems] == []
    assert result.dry_run is not None
    ran = {r.operation: (r.ok, r.error) for r in result.dry_run}
    assert ran == dict.fromkeys(BUILTINS[TWINS.get(name, name)], (True, None))


@pytest.mark.parametrize("twin", sorted(TWINS))
def test_a_postgresql_twin_has_exactly_its_originals_knobs_and_operations(twin: str) -> None:
    original, pg = builtin_definition(TWINS[twin]), builtin_definition(twin)
    assert pg.name == twin
    # every knob: name, default (and so its type), min, max, choices, live, help, unit; in order
    assert list(pg.knobs) == list(original.knobs)
    for name, knob in original.knobs.items():
        assert pg.knobs[name].model_dump() == knob.model_dump(), name
    # the same operations in the same order, paced and run the same way; only the SQL differs
    assert list(pg.operations) == list(original.operations)
    for name, op in original.operations.items():
        assert pg.operations[name].model_dump(exclude={"steps"}) == op.model_dump(exclude={"steps"}), name
        assert [type(s) for s in pg.operations[name].steps] == [type(s) for s in op.steps], name
    # the load: the same tables in order (lowercase), the same row counts
    assert [t.lower().replace("usertable", "user_table") for t in original.load] == list(pg.load)
    assert [t.rows for t in pg.load.values()] == [t.rows for t in original.load.values()]
    # the watch: the same knobs drive it; its table, columns, index and filter are the PG names
    assert (pg.watch is None) == (original.watch is None)
    if original.watch is not None and pg.watch is not None:
        names = {"table", "timestamp", "index", "filter", "key", "stream", "versions", "shards"}
        assert pg.watch.model_dump(exclude=names) == original.watch.model_dump(exclude=names)
        assert pg.watch.filter == (original.watch.filter and original.watch.filter.replace("ShardId", "shard_id"))
        snake = {"ShardId": "shard_id", "Version": "version", "WriterId": "writer_id"}
        for part in ("versions", "shards"):  # the same columns (the PG names), the same shard values
            mine, theirs = getattr(pg.watch, part), getattr(original.watch, part)
            assert (mine is None) == (theirs is None)
            if mine is not None and theirs is not None:
                expected = {k: snake.get(v, v) if isinstance(v, str) else v for k, v in theirs.model_dump().items()}
                assert mine.model_dump() == expected
