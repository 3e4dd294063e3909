"""Issue 22: the Change Watcher's exact reconciliation on a *definition* run (both runtimes), against
the local Spanner: a test definition (not a built-in) upserts 1..3 versioned keys per single-use
commit and batch-inserts 3 fresh keys, every row carrying Version: version, WriterId: writer_id,
LastUpdated: commit_timestamp; the watch reads versions (+ shards in poll mode).

The expected figures come from the database, read afterwards with the official client, and from
the definition: the run's database holds only this run's rows, so keys written is COUNT(*); with
no failed commit every version 1..v of a key committed, so versions written is SUM(Version); fresh
keys (2^62 and above, FreshKeys) are 3 per insert_new execution.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import ConfigPatch, RunConfig, WorkerRuntime
from spanload.model.samples import Summary
from spanload.model.settings import Settings
from spanload.model.state import RunState
from spanload.model.workload import WorkloadDefinition
from spanload.model.workload_file import validate_data
from spanload.workers.interp.ledger import FRESH_KEY_BASE
from tests.engine.conftest import LocalTarget
from tests.engine.test_definition_e2e import SEED, count, create_schema, query, run
from tests.engine.test_preload import PreloadRecorder

pytestmark = pytest.mark.timeout(240)

SHARDS = list(range(-18, 19))
# Wide enough that no draw finds every owned key in flight on a loaded machine (60 keys, 30 a worker,
# ran out once under two xdist workers: a "no free key" error fails the check that nothing failed)
KEYS = 1000
TABLE = (
    "CREATE TABLE Versioned (Id INT64 NOT NULL, ShardId INT64, Version INT64, WriterId STRING(64), "
    "LastUpdated TIMESTAMP OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (Id)"
)
ROW = {
    "ShardId": {"uniform": {"min": -18, "max": 18}},
    "Version": "version",
    "WriterId": "writer_id",
    "LastUpdated": "commit_timestamp",
}


def versioned(mode: str, **watch: Any) -> WorkloadDefinition:
    return validate_data(
        {
            "name": "versioned",
            "ddl": [TABLE],
            "knobs": {
                "keys": {"default": KEYS, "min": 1, "max": 100000},
                "watchers": {"default": 2, "min": 1, "max": 8},
                "upsert_rate": {"default": 40.0, "min": 0, "max": 1000},
            },
            "operations": {
                "upsert": {
                    "rate": "$upsert_rate",
                    "transaction": "single_use",
                    "steps": [
                        {
                            "insert_or_update": {
                                "table": "Versioned",
                                "rows": {"uniform": {"min": 1, "max": 3}},
                                "columns": {"Id": {"versioned_key": {"max": "$keys"}}, **ROW},
                            }
                        }
                    ],
                },
                "insert_new": {
                    "rate": 10,
                    "transaction": "single_use",
                    "steps": [{"insert": {"table": "Versioned", "rows": 3, "columns": {"Id": "fresh_key", **ROW}}}],
                },
            },
            "watch": {
                "table": "Versioned",
                "timestamp": "LastUpdated",
                "mode": mode,
                "poll_interval": "200ms",
                "heartbeat": "200ms",
                "watchers": "$watchers",
                "versions": {"version": "Version", "writer": "WriterId"},
                **watch,
            },
        }
    )


def prepared(
    local: LocalTarget, definition: WorkloadDefinition, fields: dict[str, Any], runtime: str = "python"
) -> RunConfig:
    data = definition.model_dump(mode="json", exclude_unset=True)
    body = {"workload": "definition", "definition": data, "seed": SEED, **fields}
    config = local.config(body, runtime=WorkerRuntime(runtime))
    create_schema(local, config, definition)
    return config


def check_against_the_database(
    local: LocalTarget, config: RunConfig, summary: Summary, copies: int = 1, context: str = ""
) -> None:
    """The reconciliation's figures are the database's and the definition's; ``copies``: how many
    watchers received each change (shards split them: 1; change-stream followers each see all). A
    mismatch names the missing keys' rows (version, commit timestamp) beside ``context`` (e.g. a
    switch's hand-over times), so that an intermittent loss says where it happened."""
    assert not summary.errors_by_code, summary.errors_by_code
    r = summary.reconciliation
    assert r is not None
    if not r.ok:
        ids = ", ".join(str(k) for k in r.missing_keys) or "NULL"
        rows = query(local, config, f"SELECT Id, Version, LastUpdated FROM Versioned WHERE Id IN ({ids}) ORDER BY 3")
        raise AssertionError(f"{r}\nthe missing keys' rows (Id, Version, LastUpdated): {rows}\n{context}")
    assert r.versions_received + r.superseded_unseen == r.versions_written == summary.totals.mutations
    assert summary.totals.received_changes == copies * r.versions_received
    ((rows, versions, fresh, writers),) = query(
        local,
        config,
        f"SELECT COUNT(*), SUM(Version), COUNTIF(Id >= {FRESH_KEY_BASE}), COUNT(DISTINCT WriterId) FROM Versioned",
    )
    assert (r.keys_written, r.final_versions_received, r.versions_written) == (rows, rows, versions)
    assert (r.duplicates, r.unexpected, r.uncertain_keys, r.foreign_changes) == (0, 0, 0, 0)
    assert fresh == 3 * count(summary, "insert_new") > 0
    assert rows - fresh <= KEYS  # the versioned keys stay in [0, keys)
    assert writers == config.processes
    assert summary.totals.transactions == count(summary, "upsert") + count(summary, "insert_new")


@pytest.mark.parametrize("runtime", ["python", "go"])
@pytest.mark.parametrize("mode", ["poll", "change_stream"])
def test_a_versioned_definition_reconciles_exactly(local_spanner: LocalTarget, mode: str, runtime: str) -> None:
    """Both runtimes, through the Python supervisor and engine/reconcile.py."""
    shards = {"shards": {"column": "ShardId", "values": SHARDS}} if mode == "poll" else {}
    definition = versioned(mode, **shards)
    config = prepared(local_spanner, definition, {"duration_s": 3.0, "processes": 2}, runtime)
    summary, _ = run(config, f"versions-{mode}-{runtime}")
    assert [w.runtime for w in summary.workers] == [runtime, runtime]
    check_against_the_database(local_spanner, config, summary, copies=1 if mode == "poll" else 2)


def test_a_live_change_of_pollers_loses_and_doubles_nothing(local_spanner: LocalTarget) -> None:
    """2 pollers, then 5, then 1: each regroup restarts from the oldest position and skips what a
    shard's previous poller had read, so the reconciliation stays exact."""
    definition = versioned("poll", shards={"column": "ShardId", "values": SHARDS})
    config = prepared(local_spanner, definition, {"processes": 2})

    async def scenario() -> PreloadRecorder:
        sink = PreloadRecorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("regroup", config)
        for watchers in (5, 1):
            seen = len(sink.samples)
            while len(sink.samples) < seen + 2:
                await asyncio.sleep(0.05)
            await supervisor.patch("regroup", ConfigPatch.model_validate({"knobs": {"watchers": watchers}}), "test")
        seen = len(sink.samples)
        while len(sink.samples) < seen + 2:
            await asyncio.sleep(0.05)
        await supervisor.stop("regroup")
        await asyncio.wait_for(supervisor.wait_finished("regroup"), 120)
        return sink

    sink = asyncio.run(asyncio.wait_for(scenario(), 200))
    assert sink.states[-1] == (RunState.FINISHED, None), sink.states
    assert sink.summary is not None
    check_against_the_database(local_spanner, config, sink.summary)
