"""The built-in workloads' definition files (workloads/change_watcher.yaml, write_benchmark.yaml,
session_pool.yaml, participants.yaml): each validates against a scratch database built from its
DDL, every statement analysed by the local Spanner, and its dry run executes every operation once
(the ones a run leaves off too: the DML and batch-insert modes, the readers) without an error."""

from __future__ import annotations

import pytest

from spanload.engine.workload_check import check
from spanload.model.presets import builtin_definition
from tests.engine.conftest import LocalTarget

BUILTINS = {
    "change_watcher": ["write", "write_dml", "batch_insert", "point_read", "recent_changes"],
    "write_benchmark": ["write", "write_dml", "batch_insert", "point_read"],
    "session_pool": ["leaderboard", "insert_score"],
    "participants": ["batch_insert"],
}


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_a_builtin_definition_validates_and_runs_each_operation_once(local_spanner: LocalTarget, name: str) -> None:
    definition = builtin_definition(name)
    result = check(definition, local_spanner.address, dry_run=definition.knob_values({}))
    assert [p.message for p in result.problems] == []
    assert result.dry_run is not None
    ran = {r.operation: (r.ok, r.error) for r in result.dry_run}
    assert ran == dict.fromkeys(BUILTINS[name], (True, None))
