"""Workload shapes end to end against the local Spanner: two worker processes, the tweets and
leaderboard schemas, ``batch_insert`` mode and the leaderboard reader.

What the summary counts is compared with what the database holds afterwards: every key's final
``Version`` is the number of times it was written (the ledger numbers each key's writes 1, 2, ...),
so with no failed write SUM(Version) is the run's mutation count exactly, and ``WriterId`` names the
worker process that owns the key (worker ``i`` of ``n`` owns the keys ``k % n == i``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from spanload.model.config import RunConfig, WorkerRuntime
from spanload.model.presets import make_config
from spanload.model.samples import Op, Summary
from spanload.model.state import RunState
from spanload.spanner import client as spanner_client
from spanload.workers.process import writer_id
from tests.engine.conftest import LocalTarget, assert_reconciled_exactly
from tests.engine.test_definition_e2e import count
from tests.engine.test_e2e_local import _run_to_end

pytestmark = pytest.mark.timeout(180)
SECONDS = 4.0


def _run(config: RunConfig, run_id: str) -> tuple[Summary, list[int]]:
    pids: list[int] = []
    sink = asyncio.run(_run_to_end(config, run_id, pids))
    assert sink.states[-1] == (RunState.FINISHED, None)
    assert sink.summary is not None
    return sink.summary, pids


def _query(local: LocalTarget, config: RunConfig, sql: str) -> list[list[Any]]:
    client = spanner_client.make_client(config.target, local.address)
    database = client.instance(config.target.instance).database(config.target.database)
    with database.snapshot() as snapshot:
        rows = [list(r) for r in snapshot.execute_sql(sql)]
    client.close()
    return rows


def _assert_table_matches_the_counts(local: LocalTarget, config: RunConfig, summary: Summary) -> int:
    """Singers' rows (change_watcher.yaml's, which both callers run) are exactly what the summary
    says was written; returns the row count."""
    table = "Singers"
    assert summary.totals.errors == 0 and summary.totals.transactions > 0
    ((rows, versions),) = _query(local, config, f"SELECT COUNT(*), SUM(Version) FROM {table}")
    assert versions == summary.totals.mutations, f"{table}: SUM(Version) {versions} != {summary.totals.mutations}"
    assert summary.latency[Op.UPDATER_TXN].count == summary.totals.transactions
    return int(rows)


def test_two_worker_processes_both_report_and_reconcile_exactly(
    local_spanner: LocalTarget, runtime: WorkerRuntime
) -> None:
    target = local_spanner.config().target.model_dump(mode="json", include={"kind", "emulator_host", "database"})
    overrides = {"target": target, "duration_s": SECONDS, "processes": 2, "runtime": runtime.value}
    config = make_config("light", {**overrides, "updater": {"key_space": 300}})  # light's 5 tx/s, 300 keys
    summary, pids = _run(config, f"two-{runtime.value}")
    assert_reconciled_exactly(summary)
    workers = summary.workers
    assert [w.index for w in workers] == [0, 1]
    assert [w.pid for w in workers] == pids and len(set(pids)) == 2
    assert all(w.operations > 0 and w.runtime == runtime.value for w in workers), workers
    totals = summary.totals
    assert sum(w.operations for w in workers) == totals.transactions + totals.polls + totals.reads
    _assert_table_matches_the_counts(local_spanner, config, summary)
    # each worker wrote only the keys it owns, and both wrote some
    owners = _query(local_spanner, config, "SELECT MOD(SingerId, 2), WriterId, COUNT(*) FROM Singers GROUP BY 1, 2")
    by_owner = {(int(m), w) for m, w, _ in owners}
    assert by_owner == {(0, writer_id(f"two-{runtime.value}", 0)), (1, writer_id(f"two-{runtime.value}", 1))}


def test_tweets_schema_with_point_reads(local_spanner: LocalTarget) -> None:
    """The write-benchmark preset (workloads/write_benchmark.yaml), scaled down through the old
    fields (--tps, --parallelism, the reader's), one row a write over a key space where two writes
    meeting on a key is ~1e-5 likely: every write is a row of Tweets, and its index on Sort holds them."""
    target = local_spanner.config().target.model_dump(mode="json", include={"kind", "emulator_host", "database"})
    config = make_config(
        "write-benchmark",
        {
            "target": target,
            "duration_s": SECONDS,
            "updater": {"transactions_per_second": 20, "parallelism": 4, "key_space": 1_000_000_000},
            "reader": {"reads_per_second": 20, "concurrency": 2},
            "knobs": {"max_mutations": 1},
        },
    )
    assert config.knobs["transactions_per_second"] == 20 and config.knobs["read_concurrency"] == 2
    summary, _ = _run(config, "tweets")
    assert summary.totals.errors == 0, summary.errors_by_code
    writes, reads = count(summary, "write"), count(summary, "point_read")
    ((rows, versions),) = _query(local_spanner, config, "SELECT COUNT(*), SUM(Version) FROM Tweets")
    assert rows == versions == writes > 0
    assert reads > 0 and count(summary, "write_dml") == count(summary, "batch_insert") == 0
    # the secondary index on Sort holds every row
    ((indexed,),) = _query(local_spanner, config, "SELECT COUNT(*) FROM Tweets@{FORCE_INDEX=TweetsBySort}")
    assert indexed == rows


def test_batch_insert_writes_only_new_rows(local_spanner: LocalTarget) -> None:
    """The updater's batch_insert mode (the 2pc-batch-insert preset's shape before it became
    workloads/participants.yaml): every commit inserts batch_rows new rows."""
    config = local_spanner.config(
        {
            "duration_s": SECONDS,
            "updater": {"mode": "batch_insert", "transactions_per_second": 10, "batch_rows": 6},
            "watcher": {"enabled": False},
            "reader": {"enabled": False},
        }
    )
    summary, _ = _run(config, "batch-insert")
    rows = _assert_table_matches_the_counts(local_spanner, config, summary)
    assert rows == summary.totals.mutations == 6 * summary.totals.transactions  # all new: no key written twice
    assert _query(local_spanner, config, "SELECT COUNT(*) FROM Singers WHERE Version != 1") == [[0]]


def test_leaderboard_reader_joins_players_and_scores(local_spanner: LocalTarget) -> None:
    """The session-pool preset (workloads/session_pool.yaml: join-query readers and score writers
    with think time over a session pool), scaled down: the load fills Players, and every write is a
    row of Scores (a key space where two writes meeting on a key is ~1e-5 likely)."""
    target = local_spanner.config().target.model_dump(mode="json", include={"kind", "emulator_host", "database"})
    config = make_config(
        "session-pool-agents-5",
        {"target": target, "duration_s": SECONDS, "updater": {"parallelism": 2, "key_space": 1_000_000_000}},
    )
    assert config.knobs["agents"] == 2 and not config.client.multiplexed_sessions
    summary, _ = _run(config, "leaderboard")
    assert summary.totals.errors == 0, summary.errors_by_code
    players = config.definition.load["Players"].rows if config.definition is not None else None
    assert players == 1000  # workloads/session_pool.yaml loads 1,000 players
    assert _query(local_spanner, config, "SELECT COUNT(*) FROM Players") == [[players]]
    ((rows,),) = _query(local_spanner, config, "SELECT COUNT(*) FROM Scores")
    assert rows == count(summary, "insert_score") > 0
    # 2 readers, each a join then 100 ms of think time, for SECONDS: at most 10 a second each
    assert 0 < count(summary, "leaderboard") <= 2 * 10 * SECONDS
