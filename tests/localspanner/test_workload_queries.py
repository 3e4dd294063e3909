"""Issue 8, "Queries that the workloads need": watcher queries, lookups, joins, aggregates, functions, hints."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest
from google.api_core.datetime_helpers import DatetimeWithNanoseconds
from google.cloud.spanner_v1 import COMMIT_TIMESTAMP, ExecuteSqlRequest, param_types

from .conftest import DatabaseFactory, SpannerDb
from .farmhash import change_watcher_shard
from .schemas import CHANGE_WATCHER_DDL, SHARDS

DDL = [
    *CHANGE_WATCHER_DDL,
    "CREATE TABLE Players (PlayerId INT64 NOT NULL, Name STRING(MAX), Country STRING(2)) PRIMARY KEY (PlayerId)",
    """CREATE TABLE Scores (PlayerId INT64 NOT NULL, GameId INT64 NOT NULL, Score INT64, PlayedAt TIMESTAMP)
        PRIMARY KEY (PlayerId, GameId)""",
]
COMMITS = 6
ROWS_PER_COMMIT = 100
WATCHER_SQL = (
    "SELECT Id, ShardId, LastUpdated FROM DataChanges@{{FORCE_INDEX=DataChangesByShardTime}} "
    "WHERE {shard_filter} AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit"
)
PLAIN_WATCHER_SQL = (
    "SELECT Id, ShardId, LastUpdated FROM DataChanges WHERE LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit"
)


class Loaded:
    def __init__(self, db: SpannerDb, batches: list[tuple[DatetimeWithNanoseconds, list[str]]]) -> None:
        self.db = db
        self.batches = batches


@pytest.fixture(scope="module")
def loaded(make_database: DatabaseFactory) -> Loaded:
    db = make_database(DDL)
    batches = []
    for c in range(COMMITS):
        ids = [str(uuid.UUID(int=(c << 64) + i + 1)) for i in range(ROWS_PER_COMMIT)]
        with db.database.batch() as batch:
            batch.insert("DataChanges", ["Id", "Payload", "LastUpdated"], [(i, f"c{c}", COMMIT_TIMESTAMP) for i in ids])
        batches.append((batch.committed, sorted(ids)))
    with db.database.batch() as batch:
        batch.insert("DataChanges", ["Id", "Payload", "LastUpdated"], [("no-timestamp", "null", None)])
        batch.insert(
            "Players",
            ["PlayerId", "Name", "Country"],
            [(1, "Ann", "NL"), (2, "Bob", "DE"), (3, "Cy", "NL"), (4, "Di", None)],
        )
        batch.insert(
            "Scores",
            ["PlayerId", "GameId", "Score", "PlayedAt"],
            [(p, g, p * 100 + g * 7 % 13, None) for p in (1, 2, 3) for g in range(1, 16)],
        )
    return Loaded(db, batches)


def _query(
    db: SpannerDb, sql: str, params: dict[str, Any] | None = None, types: dict[str, Any] | None = None, **kw: Any
) -> list[list[Any]]:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql(sql, params=params, param_types=types, **kw)]


def _expected_after(loaded: Loaded, after: int, limit: int) -> list[list[Any]]:
    rows = [[i, change_watcher_shard(i), ts] for ts, ids in loaded.batches[after + 1 :] for i in ids]
    return rows[:limit]


WATCHER_VARIANTS = {
    "shard list": (WATCHER_SQL.format(shard_filter="ShardId IN UNNEST(@shards)"), True),
    "shard is not null": (WATCHER_SQL.format(shard_filter="ShardId IS NOT NULL"), False),
    "no shard filter": (PLAIN_WATCHER_SQL, False),
}


@pytest.mark.parametrize("variant", list(WATCHER_VARIANTS))
@pytest.mark.parametrize("limit", [1000, 150])
def test_change_watcher_query(loaded: Loaded, variant: str, limit: int) -> None:
    sql, with_shards = WATCHER_VARIANTS[variant]
    after = 2
    params: dict[str, Any] = {"ts": loaded.batches[after][0], "limit": limit}
    types: dict[str, Any] = {"ts": param_types.TIMESTAMP, "limit": param_types.INT64}
    if with_shards:
        params["shards"] = SHARDS
        types["shards"] = param_types.Array(param_types.INT64)
    rows = _query(loaded.db, sql, params, types)
    want = _expected_after(loaded, after, limit)
    assert len(rows) == len(want), f"{variant}: {len(rows)} rows, want {len(want)}"
    assert [r[0] for r in rows] == [w[0] for w in want], f"{variant}: wrong rows or order"
    assert [r[1] for r in rows] == [w[1] for w in want], f"{variant}: ShardId differs from Spanner's"
    assert all(r[2] == w[2] for r, w in zip(rows, want, strict=True)), f"{variant}: LastUpdated is not the commit time"


def test_point_lookup_by_key(loaded: Loaded) -> None:
    rows = _query(
        loaded.db,
        "SELECT PlayerId, Name, Country FROM Players WHERE PlayerId = @Id",
        {"Id": 3},
        {"Id": param_types.INT64},
    )
    assert rows == [[3, "Cy", "NL"]]
    assert _query(loaded.db, "SELECT * FROM Players WHERE PlayerId = @Id", {"Id": 99}, {"Id": param_types.INT64}) == []


def test_players_scores_join(loaded: Loaded) -> None:
    rows = _query(
        loaded.db,
        "SELECT * FROM Players p JOIN Scores s ON p.PlayerId = s.PlayerId WHERE p.PlayerId=@Id "
        "ORDER BY s.Score DESC LIMIT 10",
        {"Id": 2},
        {"Id": param_types.INT64},
    )
    scores = sorted((200 + g * 7 % 13 for g in range(1, 16)), reverse=True)[:10]
    assert [r[-2] for r in rows] == scores, rows
    assert all(r[:3] == [2, "Bob", "DE"] and r[3] == 2 for r in rows), rows[0]
    assert len(rows[0]) == 7, "SELECT * of a join returns the columns of both tables"


def test_aggregates_with_group_by_and_having(loaded: Loaded) -> None:
    rows = _query(
        loaded.db,
        "SELECT PlayerId, COUNT(*) AS n, MIN(Score), MAX(Score), SUM(Score), AVG(Score) FROM Scores "
        "GROUP BY PlayerId HAVING SUM(Score) > @min ORDER BY PlayerId",
        {"min": 1600},
        {"min": param_types.INT64},
    )
    want = []
    for p in (1, 2, 3):
        scores = [p * 100 + g * 7 % 13 for g in range(1, 16)]
        if sum(scores) > 1600:
            want.append([p, 15, min(scores), max(scores), sum(scores), sum(scores) / 15])
    assert rows == want
    assert isinstance(rows[0][5], float), "AVG of INT64 is FLOAT64"
    counted = _query(loaded.db, "SELECT Country, COUNT(*) FROM Players GROUP BY Country ORDER BY Country")
    assert counted == [[None, 1], ["DE", 1], ["NL", 2]], "NULL groups sort first"


def test_timestamp_functions(loaded: Loaded) -> None:
    base = DatetimeWithNanoseconds(2024, 3, 10, 12, 30, 15, tzinfo=dt.UTC)
    before = dt.datetime.now(dt.UTC)
    rows = _query(
        loaded.db,
        "SELECT CURRENT_TIMESTAMP(), TIMESTAMP_SUB(@t, INTERVAL 90 MINUTE), TIMESTAMP_ADD(@t, INTERVAL 2 DAY), "
        "TIMESTAMP_DIFF(@t, TIMESTAMP '2024-03-10T00:00:00Z', SECOND), EXTRACT(YEAR FROM @t AT TIME ZONE 'UTC'), "
        "EXTRACT(HOUR FROM @t AT TIME ZONE 'UTC'), EXTRACT(DAYOFWEEK FROM @t AT TIME ZONE 'UTC'), "
        "EXTRACT(DATE FROM @t AT TIME ZONE 'UTC'), TIMESTAMP_TRUNC(@t, HOUR, 'UTC'), "
        "FORMAT_TIMESTAMP('%Y-%m-%d %H:%M', @t, 'UTC')",
        {"t": base},
        {"t": param_types.TIMESTAMP},
    )
    after = dt.datetime.now(dt.UTC)
    now, sub, add, diff, year, hour, dow, date, trunc, text = rows[0]
    assert before - dt.timedelta(seconds=1) <= now <= after + dt.timedelta(seconds=1)
    assert sub == base - dt.timedelta(minutes=90)
    assert add == base + dt.timedelta(days=2)
    assert diff == 12 * 3600 + 30 * 60 + 15
    assert (year, hour, dow) == (2024, 12, 1), "2024-03-10 is a Sunday (DAYOFWEEK 1)"
    assert date == dt.date(2024, 3, 10)
    assert trunc == base.replace(minute=0, second=0)
    assert text == "2024-03-10 12:30"


def test_default_time_zone_is_america_los_angeles(loaded: Loaded) -> None:
    """Spanner's date/time functions default to America/Los_Angeles (PDT from 2024-03-10 10:00 UTC)."""
    base = DatetimeWithNanoseconds(2024, 3, 10, 12, 30, 15, tzinfo=dt.UTC)
    rows = _query(
        loaded.db,
        "SELECT EXTRACT(HOUR FROM @t), EXTRACT(DATE FROM @t), FORMAT_TIMESTAMP('%H:%M', @t), "
        "TIMESTAMP_TRUNC(@t, DAY), TIMESTAMP '2024-01-01 00:00:00'",
        {"t": base},
        {"t": param_types.TIMESTAMP},
    )
    hour, date, text, day, literal = rows[0]
    assert (hour, date, text) == (5, dt.date(2024, 3, 10), "05:30")
    assert day == DatetimeWithNanoseconds(2024, 3, 10, 8, 0, 0, tzinfo=dt.UTC), "midnight PST is 08:00 UTC"
    assert literal == DatetimeWithNanoseconds(2024, 1, 1, 8, 0, 0, tzinfo=dt.UTC)


def test_string_functions(loaded: Loaded) -> None:
    rows = _query(
        loaded.db,
        "SELECT CONCAT(@s, '!'), LOWER(@s), UPPER(@s), LENGTH(@s), BYTE_LENGTH(@s), SUBSTR(@s, 2, 3), "
        "STARTS_WITH(@s, 'Hé'), ENDS_WITH(@s, 'ld'), REPLACE(@s, 'l', 'L'), TRIM('  x  '), LPAD('7', 3, '0'), "
        "STRPOS(@s, 'wo'), REGEXP_CONTAINS(@s, r'w.r'), SPLIT('a,b,c', ','), REVERSE('abc'), "
        "FORMAT('%d-%s', 42, 'x'), CAST(LENGTH(@s) AS STRING), IFNULL(NULL, 'd'), COALESCE(NULL, NULL, 'e')",
        {"s": "Héllo world"},
        {"s": param_types.STRING},
    )
    assert rows == [
        [
            "Héllo world!", "héllo world", "HÉLLO WORLD", 11, 12, "éll", True, True, "HéLLo worLd", "x", "007",
            7, True, ["a", "b", "c"], "cba", "42-x", "11", "d", "e",
        ]
    ]  # fmt: skip


def _rows_scanned(db: SpannerDb, sql: str, params: dict[str, Any], types: dict[str, Any]) -> tuple[int, int]:
    with db.database.snapshot() as snap:
        result = snap.execute_sql(sql, params=params, param_types=types, query_mode=ExecuteSqlRequest.QueryMode.PROFILE)
        rows = list(result)
        stats = dict(result.stats.query_stats)
    return len(rows), int(stats["rows_scanned"])


def test_force_index_hint_uses_the_index_and_no_hint_scans_the_table(loaded: Loaded) -> None:
    total = COMMITS * ROWS_PER_COMMIT + 1
    newest = len(loaded.batches) - 2
    params = {"ts": loaded.batches[newest][0], "limit": 1000, "shards": SHARDS}
    types = {"ts": param_types.TIMESTAMP, "limit": param_types.INT64, "shards": param_types.Array(param_types.INT64)}
    hinted_rows, hinted_scanned = _rows_scanned(
        loaded.db, WATCHER_SQL.format(shard_filter="ShardId IN UNNEST(@shards)"), params, types
    )
    plain_rows, plain_scanned = _rows_scanned(
        loaded.db,
        "SELECT Id, ShardId, LastUpdated FROM DataChanges WHERE ShardId IN UNNEST(@shards) "
        "AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit",
        params,
        types,
    )
    assert hinted_rows == plain_rows == ROWS_PER_COMMIT
    assert hinted_scanned <= ROWS_PER_COMMIT + len(SHARDS), (
        f"FORCE_INDEX: {hinted_scanned} rows scanned for {hinted_rows} new rows: the index was not used"
    )
    assert plain_scanned >= total, (
        f"without a hint the base table is scanned, yet rows_scanned is {plain_scanned} of {total} rows "
        "(either an index was used or rows_scanned does not count the rows the scan read)"
    )


def test_primary_key_lookup_always_uses_the_key(loaded: Loaded) -> None:
    rows, scanned = _rows_scanned(
        loaded.db, "SELECT Name FROM Players WHERE PlayerId = @Id", {"Id": 2}, {"Id": param_types.INT64}
    )
    assert rows == 1
    assert scanned <= 1, f"a primary-key lookup scanned {scanned} rows"
    one_id = loaded.batches[0][1][0]
    rows, scanned = _rows_scanned(
        loaded.db, "SELECT Payload FROM DataChanges WHERE Id = @Id", {"Id": one_id}, {"Id": param_types.STRING}
    )
    assert rows == 1 and scanned <= 1, f"a primary-key lookup in {COMMITS * ROWS_PER_COMMIT} rows scanned {scanned}"
