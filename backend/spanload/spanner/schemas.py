"""The benchmark schemas, and their idempotent creation (instance, database, tables, indexes).

Every schema has one *watched table* with the Change Watcher columns: an INT64 key, ``Version``
and ``WriterId`` (for the end-of-run reconciliation), a commit-timestamp ``LastUpdated``, and the
stored generated ``ShardId = MOD(FARM_FINGERPRINT(CAST(key AS STRING)), 19)`` (values -18..18),
with a NULL_FILTERED index on (ShardId, LastUpdated). The rest is what each report used.
"""

from __future__ import annotations

import base64
import logging
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud.spanner_admin_database_v1 import DatabaseDialect

from spanload.model.config import LatencyModel, SchemaKind, Target, TargetKind
from spanload.model.errors import RunInvalid

logger = logging.getLogger(__name__)

DDL_TIMEOUT_S = 300
LEADERBOARD_PLAYERS = 1000
_NAME = re.compile(
    r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNIQUE\s+)?(?:NULL_FILTERED\s+)?(TABLE|INDEX|CHANGE\s+STREAM|VIEW|SEQUENCE)"
    r"\s+(?:IF\s+NOT\s+EXISTS\s+)?`?(\w+)`?",
    re.IGNORECASE,
)


def _watch_columns(key: str) -> str:
    return (
        "  Version INT64,\n"
        "  WriterId STRING(64),\n"
        "  LastUpdated TIMESTAMP OPTIONS (allow_commit_timestamp = true),\n"
        f"  ShardId INT64 AS (MOD(FARM_FINGERPRINT(CAST({key} AS STRING)), 19)) STORED,\n"
    )


Payload = Callable[[random.Random, int], tuple[Any, ...]]


@dataclass(frozen=True)
class SchemaSpec:
    """One benchmark schema: its DDL and how the workers write and read it."""

    kind: SchemaKind
    table: str  # the watched table
    key: str
    index: str  # NULL_FILTERED (ShardId, LastUpdated), or "" for none
    payload_columns: tuple[str, ...]
    payload: Payload  # (rng, key) -> values of payload_columns
    ddl: tuple[str, ...]
    point_query: str
    recent_query: str  # @since: TIMESTAMP
    leaderboard_query: str | None = None
    seed: Callable[[Any], None] | None = field(default=None, compare=False)

    @property
    def write_columns(self) -> tuple[str, ...]:
        return (self.key, *self.payload_columns, "Version", "WriterId", "LastUpdated")


def _singer_payload(rng: random.Random, key: int) -> tuple[Any, ...]:
    # The client wants BYTES as base64 (raw bytes are refused with a ValueError).
    return (f"First{rng.randrange(10_000)}", f"Last{key % 100_000}", base64.b64encode(rng.randbytes(12)))


def _tweet_payload(rng: random.Random, key: int) -> tuple[Any, ...]:
    return (f"author{rng.randrange(1000)}", "x" * rng.randrange(20, 140), rng.randrange(1 << 40))


def _score_payload(rng: random.Random, key: int) -> tuple[Any, ...]:
    return (rng.randrange(LEADERBOARD_PLAYERS), rng.randrange(1_000_000))


def _user_payload(rng: random.Random, key: int) -> tuple[Any, ...]:
    return tuple(rng.randbytes(50).hex() for _ in range(3))  # YCSB's fields: 100 characters each


def _seed_players(database: Any) -> None:
    """Insert the leaderboard's players once (insert-or-update, so it is idempotent)."""
    rows = [(i, f"player-{i}") for i in range(LEADERBOARD_PLAYERS)]
    with database.batch() as batch:
        batch.insert_or_update("Players", ("PlayerId", "PlayerName"), rows)


SINGERS = SchemaSpec(
    kind=SchemaKind.SINGERS,
    table="Singers",
    key="SingerId",
    index="SingersByShardLastUpdated",
    payload_columns=("FirstName", "LastName", "SingerInfo"),
    payload=_singer_payload,
    ddl=(
        "CREATE TABLE Singers (\n  SingerId INT64 NOT NULL,\n  FirstName STRING(200),\n"
        "  LastName STRING(200),\n  SingerInfo BYTES(MAX),\n" + _watch_columns("SingerId") + ") PRIMARY KEY (SingerId)",
        "CREATE NULL_FILTERED INDEX SingersByShardLastUpdated ON Singers (ShardId, LastUpdated)",
    ),
    point_query="SELECT SingerId, FirstName, LastName, Version FROM Singers WHERE SingerId = @key",
    recent_query=(
        "SELECT SingerId, Version, LastUpdated FROM Singers WHERE LastUpdated > @since "
        "ORDER BY LastUpdated DESC LIMIT 100"
    ),
)

TWEETS = SchemaSpec(
    kind=SchemaKind.TWEETS,
    table="Tweets",
    key="Id",
    index="TweetsByShardLastUpdated",
    payload_columns=("Author", "Content", "Sort"),
    payload=_tweet_payload,
    ddl=(
        "CREATE TABLE Tweets (\n  Id INT64 NOT NULL,\n  Author STRING(64),\n  Content STRING(MAX),\n"
        "  Sort INT64,\n" + _watch_columns("Id") + ") PRIMARY KEY (Id)",
        "CREATE INDEX TweetsBySort ON Tweets (Sort)",
        "CREATE NULL_FILTERED INDEX TweetsByShardLastUpdated ON Tweets (ShardId, LastUpdated)",
    ),
    point_query="SELECT Id, Author, Content, Sort, Version FROM Tweets WHERE Id = @key",
    recent_query="SELECT Id, Sort FROM Tweets@{FORCE_INDEX=TweetsBySort} ORDER BY Sort DESC LIMIT 100",
)

LEADERBOARD = SchemaSpec(
    kind=SchemaKind.LEADERBOARD,
    table="Scores",
    key="ScoreId",
    index="ScoresByShardLastUpdated",
    payload_columns=("PlayerId", "Score"),
    payload=_score_payload,
    ddl=(
        "CREATE TABLE Players (\n  PlayerId INT64 NOT NULL,\n  PlayerName STRING(200),\n) PRIMARY KEY (PlayerId)",
        "CREATE TABLE Scores (\n  ScoreId INT64 NOT NULL,\n  PlayerId INT64 NOT NULL,\n  Score INT64,\n"
        + _watch_columns("ScoreId")
        + ") PRIMARY KEY (ScoreId)",
        "CREATE INDEX ScoresByScore ON Scores (Score DESC)",
        "CREATE NULL_FILTERED INDEX ScoresByShardLastUpdated ON Scores (ShardId, LastUpdated)",
    ),
    point_query="SELECT ScoreId, PlayerId, Score, Version FROM Scores WHERE ScoreId = @key",
    recent_query=(
        "SELECT ScoreId, Score, LastUpdated FROM Scores WHERE LastUpdated > @since ORDER BY LastUpdated DESC LIMIT 100"
    ),
    leaderboard_query=(
        "SELECT p.PlayerName, s.Score FROM Scores AS s JOIN Players AS p ON p.PlayerId = s.PlayerId "
        "ORDER BY s.Score DESC LIMIT 10"
    ),
    seed=_seed_players,
)

USERTABLE = SchemaSpec(
    kind=SchemaKind.USERTABLE,
    table="UserTable",
    key="Id",
    index="",  # none: a commit's participants are the splits of its rows alone
    payload_columns=("Field0", "Field1", "Field2"),
    payload=_user_payload,
    ddl=(
        "CREATE TABLE UserTable (\n  Id INT64 NOT NULL,\n  Field0 STRING(100),\n  Field1 STRING(100),\n"
        "  Field2 STRING(100),\n" + _watch_columns("Id") + ") PRIMARY KEY (Id)",
    ),
    point_query="SELECT Id, Field0, Version FROM UserTable WHERE Id = @key",
    recent_query=(
        "SELECT Id, Version, LastUpdated FROM UserTable WHERE LastUpdated > @since ORDER BY LastUpdated DESC LIMIT 100"
    ),
)

SCHEMAS: dict[SchemaKind, SchemaSpec] = {s.kind: s for s in (SINGERS, TWEETS, LEADERBOARD, USERTABLE)}


def spec(kind: SchemaKind) -> SchemaSpec:
    return SCHEMAS[kind]


def object_names(statements: Sequence[str]) -> set[str]:
    """Names of the tables and indexes that ``statements`` create (case-insensitive, upper-cased)."""
    return {m.group(2).upper() for s in statements if (m := _NAME.search(s))}


def missing_statements(wanted: Sequence[str], existing: Sequence[str]) -> list[str]:
    """The statements of ``wanted`` whose table or index is not among ``existing``'s."""
    have = object_names(existing)
    return [s for s in wanted if (m := _NAME.search(s)) is None or m.group(2).upper() not in have]


class SchemaError(RuntimeError):
    """The instance or database cannot be prepared."""


class ConsentRequired(RunInvalid):
    """The run would create objects in a database that holds other tables, and nobody agreed."""

    def __init__(self, database: str, others: Sequence[str], creating: Sequence[str]) -> None:
        self.creating = list(creating)
        super().__init__(
            f"database {database!r} holds other tables ({', '.join(sorted(others)[:8])}"
            f"{', ...' if len(others) > 8 else ''}); the run would create {', '.join(self.creating)} in it. "
            "Pass --create-schema (create_schema: true), or confirm in the UI, to create them",
            "create_schema",
        )


@dataclass(frozen=True)
class SchemaPlan:
    """What running ``ddl`` on a target would do, found without changing anything."""

    database_exists: bool
    other_tables: tuple[str, ...]  # tables the database holds that ``ddl`` does not create
    missing: tuple[str, ...]  # statements of ``ddl`` whose object the database lacks

    @property
    def needs_consent(self) -> bool:
        return self.database_exists and bool(self.other_tables) and bool(self.missing)


def plan_ddl(database: Any, ddl: Sequence[str], ours: frozenset[str] = frozenset()) -> SchemaPlan:
    """What ``ddl`` would create on ``database`` (a client database handle), read-only. Tables named
    in ``ours`` (upper-cased: the built-in workloads') do not count as the database's other tables."""
    if not database.exists():
        return SchemaPlan(database_exists=False, other_tables=(), missing=tuple(ddl))
    database.reload()
    existing = list(database.ddl_statements)
    wanted = object_names(ddl)
    tables = {
        m.group(2).upper(): m.group(2) for st in existing if (m := _NAME.search(st)) and m.group(1).upper() == "TABLE"
    }
    others = tuple(name for upper, name in tables.items() if upper not in wanted and upper not in ours)
    return SchemaPlan(database_exists=True, other_tables=others, missing=tuple(missing_statements(ddl, existing)))


def created_objects(statements: Sequence[str]) -> list[str]:
    """``["TABLE Orders", "INDEX OrdersByDate"]``: what ``statements`` create, for messages."""
    return [f"{' '.join(m.group(1).upper().split())} {m.group(2)}" for st in statements if (m := _NAME.search(st))]


def ensure_schema(client: Any, target: Target, kind: SchemaKind) -> None:
    """Create what is missing: instance (local/emulator only), database, tables, indexes, seed rows.

    Safe to call on every run start. On a cloud target the instance must already exist: Spanload
    never creates billable instances.
    """
    schema = spec(kind)
    database = ensure_ddl(client, target, schema.ddl, kind.value)
    if schema.seed is not None:
        schema.seed(database)


def ensure_ddl(client: Any, target: Target, ddl: Sequence[str], what: str, postgresql: bool = False) -> Any:
    """Create the instance (local/emulator only) and database if missing (``postgresql``: a
    PostgreSQL-dialect one; an existing database of the other dialect is a SchemaError), then the
    tables and indexes of ``ddl`` that the database lacks (``what`` names the schema in logs). Returns the
    database. Whether it may (consent, on a database holding other tables) is the control plane's
    decision, taken before any worker starts (engine/schema_setup.py)."""
    instance = client.instance(target.instance)
    if not instance.exists():
        if target.kind is TargetKind.CLOUD:
            raise SchemaError(
                f"instance {target.instance!r} does not exist in project {target.project!r}; "
                "create it first (Spanload does not create cloud instances)"
            )
        config_name = f"{client.project_name}/instanceConfigs/emulator-config"
        instance = client.instance(target.instance, configuration_name=config_name, node_count=1)
        logger.info("creating instance %s", target.instance)
        _wait(instance.create(), f"create instance {target.instance}")
    dialect = DatabaseDialect.POSTGRESQL if postgresql else DatabaseDialect.GOOGLE_STANDARD_SQL
    database = instance.database(target.database, database_dialect=dialect)
    if not database.exists():
        logger.info("creating database %s with the %s schema", target.database, what)
        try:
            _wait(database.create(), f"create database {target.database}")
        except gexc.AlreadyExists:
            logger.info("database %s was created concurrently", target.database)
    database.reload()
    if (database.database_dialect == DatabaseDialect.POSTGRESQL) != postgresql:
        has, wants = ("PostgreSQL", "GoogleSQL") if not postgresql else ("GoogleSQL", "PostgreSQL")
        raise SchemaError(
            f"database {target.database!r} is a {has} database and {what} needs a {wants} one: "
            "name another target.database (a new one is created with the right dialect)"
        )
    todo = missing_statements(ddl, list(database.ddl_statements))
    if todo:
        logger.info("applying %d DDL statements to %s", len(todo), target.database)
        _wait(database.update_ddl(todo), f"update the schema of {target.database}")
        database.reload()
        still = missing_statements(ddl, list(database.ddl_statements))
        if still:
            raise SchemaError(f"the database did not create {sorted(object_names(still))}")
    return database


def apply_database_options(client: Any, target: Target) -> None:
    """Set the run's options on a local Spanner database (its latency model), on every run start,
    so that no earlier run's model lingers. Other targets have no such options. A local server too
    old to know the option still runs a run without a model (the reset is then logged, not fatal)."""
    if target.kind is not TargetKind.LOCAL:
        return
    database = client.instance(target.instance).database(target.database)
    knee = target.commit_knee
    statement = (
        f"ALTER DATABASE `{target.database}` SET OPTIONS (spanload_latency_model = '{target.latency_model.value}', "
        f"spanload_commit_knee_rate = {'NULL' if knee is None else knee.rate}, "
        f"spanload_commit_knee_delay_ms = {'NULL' if knee is None else knee.delay_ms})"
    )
    try:
        _wait(database.update_ddl([statement]), f"set the latency model of {target.database}")
    except SchemaError as err:
        if target.latency_model is not LatencyModel.NONE or knee is not None:
            raise
        logger.info("the local Spanner keeps no latency model for %s: %s", target.database, err)


def _wait(operation: Any, what: str) -> None:
    try:
        operation.result(timeout=DDL_TIMEOUT_S)
    except gexc.GoogleAPICallError as err:
        code = err.grpc_status_code.name if err.grpc_status_code is not None else type(err).__name__
        raise SchemaError(f"could not {what}: {code}: {err.message}") from err
