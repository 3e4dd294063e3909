"""Issue 22: the built-in definitions do by default what the hand-written updater and watcher did:
every write carries its key's version and its writer, and a watcher polls the written table by its
commit timestamp (its pollers splitting the 37 ShardId values) and reconciles exactly. Each of
write_benchmark, session_pool and participants runs once against one local Spanner, at its defaults
with two pollers, and so does each PostgreSQL twin on the postgresql interface; the runtimes
alternate so that both run every kind of write (upserts of versioned keys, closed-loop upserts,
inserts of fresh keys).

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


def _case(definition: str, runtime: WorkerRuntime, table: str, key: str, writes: str) -> Case:
    pg = definition.endswith("_pg")
    return Case(
        definition,
        runtime,
        table.lower() if pg else table,
        key.lower() if pg else key,
        "version" if pg else "Version",
        "writer_id" if pg else "WriterId",
        writes,
    )


PYTHON, GO = WorkerRuntime.PYTHON, WorkerRuntime.GO
CASES = [
    _case("write_benchmark", PYTHON, "Tweets", "Id", "write"),
    _case("session_pool", GO, "Scores", "ScoreId", "insert_score"),
    _case("participants", PYTHON, "UserTable", "Id", "batch_insert"),
    _case("write_benchmark_pg", GO, "Tweets", "Id", "write"),
    _case("session_pool_pg", PYTHON, "Scores", "score_id", "insert_score"),
    _case("participants_pg", GO, "user_table", "Id", "batch_insert"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.definition}-{c.runtime.value}")
def test_a_builtin_definition_reconciles_exactly_at_its_defaults(local_spanner: LocalTarget, case: Case) -> None:
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
        },
        runtime=case.runtime,
    )
    summary, _ = run(config, f"builtin-{case.definition}-{case.runtime.value}")
    assert [w.runtime for w in summary.workers] == [case.runtime.value]
    assert not summary.errors_by_code, summary.errors_by_code
    r = assert_reconciled_exactly(summary)
    assert (r.uncertain_keys, r.foreign_changes) == (0, 0)
    ((rows, versions, writers, low, high),) = query(
        local_spanner,
        config,
        f"SELECT COUNT(*), SUM({case.version}), COUNT(DISTINCT {case.writer}), MIN({case.key}), MAX({case.key}) "
        f"FROM {case.table}",
    )
    assert (r.keys_written, r.versions_written) == (rows, versions)
    assert writers == 1  # the one worker's writer id on every row
    writes = count(summary, case.writes)
    assert summary.totals.transactions == writes > 0
    knobs = config.knob_values()
    if case.writes == "batch_insert":  # batch_rows fresh keys a commit, each written once
        assert rows == versions == knobs["batch_rows"] * writes
        assert low >= FRESH_KEY_BASE
    else:  # versioned keys of [0, key_space)
        assert 0 <= low <= high < int(knobs["key_space"])
