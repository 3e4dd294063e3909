"""A definition's watcher without a database: its paging statements, and a live change of
``watchers`` that adds pollers where the most advanced one is or stops the last ones."""

from __future__ import annotations

import datetime as dt
from typing import Any

from google.cloud.spanner_v1 import param_types

from spanload.model.workload_file import validate_data
from spanload.workers.interp.watch import DefinitionWatcher, poll_statements
from spanload.workers.stats import WorkerStats
from tests.workers.test_interp_operation import Ctx, FakeResult

DEFINITION = validate_data(
    {
        "name": "w",
        "knobs": {"watchers": {"default": 1, "min": 1, "max": 8}},
        "operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
        "watch": {
            "table": "Events",
            "timestamp": "At",
            "key": ["Shard", "Id"],
            "poll_interval": "5ms",
            "watchers": "$watchers",
        },
    }
)
T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def test_the_watcher_pages_on_timestamp_then_key() -> None:
    assert DEFINITION.watch is not None
    first, following = poll_statements(DEFINITION.watch, ["Shard", "Id"])
    assert first == "SELECT Shard, Id, At FROM Events WHERE At > @ts ORDER BY At, Shard, Id LIMIT @limit"
    assert following == (
        "SELECT Shard, Id, At FROM Events WHERE At >= @ts AND (At > @ts OR "
        "(Shard > @k0 OR (Shard = @k0 AND Id > @k1))) ORDER BY At, Shard, Id LIMIT @limit"
    )


class Database:
    def __init__(self) -> None:
        self.polls = 0

    def snapshot(self, **_: Any) -> Any:
        db = self

        class Snapshot:
            def execute_sql(self, sql: str, **_: Any) -> FakeResult:
                db.polls += 1
                return FakeResult([], [])

        return Ctx(Snapshot())


def test_a_live_change_of_watchers_adds_pollers_from_the_most_advanced_or_stops_the_last() -> None:
    watcher = DefinitionWatcher(Database, DEFINITION, {"watchers": 1}, WorkerStats(), T0)
    watcher.start()
    try:
        (first,) = watcher._pollers
        first.key_types = [param_types.INT64, param_types.INT64]
        first.last_ts, first.last_key = T0 + dt.timedelta(seconds=5), [3, 9]
        watcher.apply({"watchers": 3})
        assert len(watcher._pollers) == 3 and all(p.is_alive() for p in watcher._pollers)
        assert all((p.last_ts, p.last_key) == (first.last_ts, [3, 9]) for p in watcher._pollers[1:])
        third = watcher._pollers[2]
        watcher.apply({"watchers": 2})
        third.join(2)
        assert len(watcher._pollers) == 2 and not third.is_alive()
    finally:
        watcher.stop()
    assert not any(p.is_alive() for p in watcher._pollers)
