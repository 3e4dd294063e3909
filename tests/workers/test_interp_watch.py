"""A definition's watcher without a database: its paging statements, a live change of ``watchers``
that adds pollers where the most advanced one is or stops the last ones, and with ``shards`` the
regroup that restarts from the oldest position and skips what a shard's previous poller read."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from google.cloud.spanner_v1 import param_types

from spanload.model.workload_file import DefinitionInvalid, validate_data
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


HINTED = validate_data(
    {
        "name": "h",
        "knobs": {"hint": {"default": True}},
        "operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
        "watch": {
            "table": "Events",
            "timestamp": "At",
            "key": ["Id"],
            "index": "EventsByShardAt",
            "force_index": "$hint",
            "filter": "Shard IS NOT NULL",
        },
    }
)


def test_the_poll_is_forced_through_the_index_while_the_knob_says_so() -> None:
    """Spanner's table hint: ``FROM t@{FORCE_INDEX=i}`` in GoogleSQL, ``FROM t /*@ FORCE_INDEX=i */``
    in PostgreSQL (Spanner's query-syntax docs); the filter comes first, before the timestamp."""
    watch = HINTED.watch
    assert watch is not None
    assert watch.hinted({"hint": True}, HINTED.knobs) == "EventsByShardAt"
    assert watch.hinted({"hint": False}, HINTED.knobs) is None
    first, _ = poll_statements(watch, ["Id"], index="EventsByShardAt")
    assert first == (
        "SELECT Id, At FROM Events@{FORCE_INDEX=EventsByShardAt} WHERE Shard IS NOT NULL AND At > @ts "
        "ORDER BY At, Id LIMIT @limit"
    )
    first_pg, _ = poll_statements(watch, ["Id"], pg=True, index="EventsByShardAt")
    assert first_pg == (
        "SELECT Id, At FROM Events /*@ FORCE_INDEX=EventsByShardAt */ WHERE Shard IS NOT NULL AND At > $1 "
        "ORDER BY At, Id LIMIT $2"
    )
    watcher = DefinitionWatcher(Database, HINTED, {"hint": True}, WorkerStats(), T0)
    assert "@{FORCE_INDEX=EventsByShardAt}" in watcher.next_sql
    watcher.apply({"hint": False})  # live: the next poll has no hint
    assert watcher.next_sql.startswith("SELECT Id, At FROM Events WHERE Shard IS NOT NULL AND At >= @ts")


def test_a_hint_needs_an_index_and_a_bool_knob() -> None:
    base = HINTED.model_dump(mode="json", exclude_none=True)
    no_index = {**base, "watch": {**base["watch"], "index": None}}
    number = {**base, "knobs": {"hint": {"default": 1}}}
    for data, words in ((no_index, "name the index"), (number, r"\$hint is not a bool knob")):
        with pytest.raises(DefinitionInvalid, match=words):
            validate_data(data)


def test_a_mode_that_is_a_knob_names_a_string_knob_of_the_modes() -> None:
    """Issue 29: watch.mode: $knob switches live; the knob must exist and offer only poll and change_stream."""
    base = HINTED.model_dump(mode="json", exclude_none=True)
    watch = {**base["watch"], "mode": "$m"}
    cases = (
        ({**base, "watch": watch}, r"watch.mode: \$m names no knob"),
        ({**base, "knobs": {**base["knobs"], "m": {"default": "poll"}}, "watch": watch}, "give it choices among"),
        (
            {**base, "knobs": {**base["knobs"], "m": {"default": "poll", "choices": ["poll", "push"]}}, "watch": watch},
            r"give it choices among poll, change_stream \(now \['poll', 'push'\]\)",
        ),
    )
    for data, words in cases:
        with pytest.raises(DefinitionInvalid, match=words):
            validate_data(data)
    ok = {**base, "knobs": {**base["knobs"], "m": {"default": "poll", "choices": ["poll", "change_stream"]}}}
    definition = validate_data({**ok, "watch": watch})
    assert definition.watch is not None and definition.watch.mode_knob == "m"
    assert definition.watch.mode_in({"m": "change_stream"}, definition.knobs) == "change_stream"


SHARDED = validate_data(
    {
        "name": "s",
        "knobs": {"watchers": {"default": 2, "min": 1, "max": 8}},
        "operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
        "watch": {
            "table": "V",
            "timestamp": "At",
            "key": ["Id"],
            "poll_interval": "5ms",
            "watchers": "$watchers",
            "versions": {"version": "Version", "writer": "WriterId"},
            "shards": {"column": "ShardId", "values": [-2, -1, 0, 1, 2]},
        },
    }
)


def test_a_sharded_poll_reads_versions_and_only_its_own_values() -> None:
    assert SHARDED.watch is not None
    first, _ = poll_statements(SHARDED.watch, ["Id"], shards=[-2, 0, 2])
    assert first == (
        "SELECT Id, At, Version, WriterId, ShardId FROM V WHERE ShardId IN (-2, 0, 2) AND At > @ts "
        "ORDER BY At, Id LIMIT @limit"
    )
    first_pg, _ = poll_statements(SHARDED.watch, ["Id"], pg=True, shards=[1])
    assert first_pg == (
        "SELECT Id, At, Version, WriterId, ShardId FROM V WHERE ShardId IN (1) AND At > $1 ORDER BY At, Id LIMIT $2"
    )


class Int64Keyed(Database):
    """Its INFORMATION_SCHEMA says the key column is an INT64; its polls find nothing."""

    def snapshot(self, **_: Any) -> Any:
        class Snapshot:
            def execute_sql(self, sql: str, **_: Any) -> FakeResult:
                return FakeResult([["INT64"]] if "INFORMATION_SCHEMA" in sql else [], [])

        return Ctx(Snapshot())


def test_a_live_change_of_watchers_regroups_the_shards_from_the_oldest_position_skipping_what_was_read() -> None:
    watcher = DefinitionWatcher(Int64Keyed, SHARDED, {"watchers": 2}, WorkerStats(), T0)
    watcher.start()
    try:
        ahead, behind = watcher._pollers
        assert (ahead.shards, behind.shards) == ([-2, 0, 2], [-1, 1])
        ahead.stop_event.set()
        behind.stop_event.set()
        ahead.join(2)
        behind.join(2)
        ahead.last_ts, ahead.last_key, ahead.key_types = T0 + dt.timedelta(seconds=5), [7], [param_types.INT64]
        behind.last_ts, behind.last_key, behind.key_types = T0 + dt.timedelta(seconds=3), [2], [param_types.INT64]
        watcher.apply({"watchers": 3})
        pollers = watcher._pollers
        assert [p.shards for p in pollers] == [[-2, 1], [-1, 2], [0]]
        assert all((p.last_ts, p.last_key) == (behind.last_ts, [2]) for p in pollers)
        reached = (T0 + dt.timedelta(seconds=5), 0, (7,))
        assert [p.skip for p in pollers] == [{-2: reached}, {2: reached}, {0: reached}]
        # a row of shard -2 up to where its previous poller read is not received again; after it, it is
        t4, t6 = T0 + dt.timedelta(seconds=4), T0 + dt.timedelta(seconds=6)
        rows = [[5, t4, 1, "w", -2], [7, ahead.last_ts, 2, "w", -2], [1, t4, 3, "w", 1], [8, t6, 4, "w", -2]]
        assert [r[0] for r in pollers[0]._new(rows, 1)] == [1, 8]
    finally:
        watcher.stop()
    assert not any(p.is_alive() for p in watcher._pollers)


class StringKeyed(Database):
    def snapshot(self, **_: Any) -> Any:
        class Snapshot:
            def execute_sql(self, sql: str, **_: Any) -> FakeResult:
                return FakeResult([["STRING(36)"]], [])

        return Ctx(Snapshot())


def test_versions_need_a_key_of_one_int64_column_and_say_so_naming_watch_versions() -> None:
    with pytest.raises(ValueError, match=r"^watch\.versions: .* one INT64 column; V\.Id is STRING\(36\)$"):
        DefinitionWatcher(StringKeyed, SHARDED, {"watchers": 2}, WorkerStats(), T0)
    assert SHARDED.watch is not None
    two = SHARDED.model_copy(update={"watch": SHARDED.watch.model_copy(update={"key": ["Id", "Sub"]})})
    with pytest.raises(ValueError, match=r"^watch\.versions: .* one INT64 column; V's is \(Id, Sub\)$"):
        DefinitionWatcher(Int64Keyed, two, {"watchers": 2}, WorkerStats(), T0)
