"""Issue 22: the built-in definitions do by default what the hand-written updater and watcher did:
every write carries its key's version and its writer, and a watcher polls the written table by its
commit timestamp (its pollers splitting the 37 ShardId values) and reconciles exactly. Each of
write_benchmark, session_pool and participants runs once against one local Spanner, at its defaults
with two pollers, and so does each PostgreSQL twin on the postgresql interface; the runtimes
alternate so that both run every kind of write (upserts of versioned keys, closed-loop upserts,
inserts of fresh keys). The write benchmark runs its other writes beside its upserts, a read-write
transaction's DML upsert of a versioned key and batch inserts of fresh keys, in each runtime: a row a
DML statement changed counts as a mutation in both, as the hand-written updater's DML mode counted it.

The expected figures come from the database, read afterwards with the official client, and from the
definition: the run's database holds only this run's writes to the watched table, so keys written
is its COUNT(*), and with no failed commit every version 1..v of a key committed, so versions
written is SUM(Version).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from spanload.model.builtin_convert import builtin_definition
from spanload.model.config import ClientInterface, WorkerRuntime
from spanload.workers.interp.ledger import FRESH_KEY_BASE
from tests.engine.conftest import LocalTarget, assert_reconciled_exactly
from tests.engine.test_definition_e2e import SEED, count, query, run

pytestmark = pytest.mark.timeout(180)

SECONDS = 3.0
WATCHERS = 2  # two pollers, each polling its share of the ShardId values


@dataclass(frozen=True)
class Case:
    definition: str
    runtime: WorkerRuntime
    table: str
    key: str
    version: str
    writer: str
    writes: str  # the operation that writes (the one a run of the defaults enables)
    modes: bool = False  # write_dml and batch_insert too


def _case(definition: str, runtime: WorkerRuntime, table: str, key: str, writes: str, modes: bool = False) -> Case:
    pg = definition.endswith("_pg")
    return Case(
        definition,
        runtime,
        table.lower() if pg else table,
        key.lower() if pg else key,
        "version" if pg else "Version",
        "writer_id" if pg else "WriterId",
        writes,
        modes,
    )


PYTHON, GO = WorkerRuntime.PYTHON, WorkerRuntime.GO
CASES = [
    _case("write_benchmark", PYTHON, "Tweets", "Id", "write", modes=True),
    _case("session_pool", GO, "Scores", "ScoreId", "insert_score"),
    _case("participants", PYTHON, "UserTable", "Id", "batch_insert"),
    _case("write_benchmark_pg", GO, "Tweets", "Id", "write", modes=True),
    _case("session_pool_pg", PYTHON, "Scores", "score_id", "insert_score"),
    _case("participants_pg", GO, "user_table", "Id", "batch_insert"),
]
MODES = {"write_dml": {"enabled": True, "rate": 20}, "batch_insert": {"enabled": True, "rate": 20}}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.definition}{'-modes' if c.modes else ''}-{c.runtime.value}")
def test_a_builtin_definition_reconciles_exactly(local_spanner: LocalTarget, case: Case) -> None:
    definition = builtin_definition(case.definition)
    assert definition.watch is not None and definition.watch.table == case.table
    interface = ClientInterface.POSTGRESQL if case.definition.endswith("_pg") else ClientInterface.GOOGLESQL
    config = local_spanner.config(
        {
            "workload": "definition",
            "definition": definition.model_dump(mode="json", exclude_unset=True),
            "seed": SEED,
            "duration_s": SECONDS,
            "knobs": {"watchers": WATCHERS},
            "client": {"interface": interface.value},
            "operations": MODES if case.modes else {},
        },
        runtime=case.runtime,
    )
    summary, _ = run(config, f"builtin-{case.definition}-{case.runtime.value}")
    assert [w.runtime for w in summary.workers] == [case.runtime.value]
    assert not summary.errors_by_code, summary.errors_by_code
    r = assert_reconciled_exactly(summary)
    assert (r.uncertain_keys, r.foreign_changes) == (0, 0)
    ((rows, versions, writers, low),) = query(
        local_spanner,
        config,
        f"SELECT COUNT(*), SUM({case.version}), COUNT(DISTINCT {case.writer}), MIN({case.key}) FROM {case.table}",
    )
    assert (r.keys_written, r.versions_written) == (rows, versions)
    assert writers == 1  # the one worker's writer id on every row
    knobs = config.knob_values()
    writes = count(summary, case.writes)
    assert writes > 0
    if case.writes == "batch_insert":  # batch_rows fresh keys a commit, each written once
        assert summary.totals.transactions == writes
        assert rows == versions == knobs["batch_rows"] * writes
        assert low >= FRESH_KEY_BASE
        return
    # versioned keys of [0, key_space); with the other modes on, a versioned key a DML upsert and
    # batch_rows fresh keys a batch insert
    dml, inserts = (count(summary, "write_dml"), count(summary, "batch_insert")) if case.modes else (0, 0)
    assert summary.totals.transactions == writes + dml + inserts
    assert (dml > 0 and inserts > 0) == case.modes
    key, space = case.key, knobs["key_space"]
    ((fresh, stray),) = query(
        local_spanner,
        config,
        f"SELECT COUNT(CASE WHEN {key} >= {FRESH_KEY_BASE} THEN 1 END), "
        f"COUNT(CASE WHEN {key} < 0 OR ({key} >= {space} AND {key} < {FRESH_KEY_BASE}) THEN 1 END) FROM {case.table}",
    )
    assert (fresh, stray) == ((knobs["batch_rows"] * inserts if case.modes else 0), 0)
