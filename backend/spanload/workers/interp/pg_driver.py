"""The ``pgadapter`` interface: a PostgreSQL driver (psycopg 3) through PGAdapter, behind the part
of the official client's ``Database`` that the interpreter and its watcher call (``snapshot``,
``batch``, ``run_in_transaction``; on each transaction ``execute_sql``, ``execute_update``,
``read`` and the mutation methods). So :mod:`~spanload.workers.interp.operation` runs one
definition through either interface unchanged.

Every statement is a server-side prepared statement (psycopg ``prepare=True``, kept per
connection), as the report's JDBC driver used them, with PostgreSQL's own ``$1`` placeholders
(``RawCursor``) and typed parameters (a ``str`` goes as ``text``, not ``unknown``, so PGAdapter has
nothing to infer). Connections are pooled: an execution takes an idle one (or opens one: PGAdapter
takes ~0.4 s to accept a connection here) and gives it back, so a worker holds as many as it had
executions in flight at once.

What PostgreSQL has no statement for is written as DML: a mutation step is an ``INSERT`` (``ON
CONFLICT (key) DO UPDATE`` for ``insert_or_update``), ``UPDATE`` or ``DELETE`` by primary key (read
once per table from ``information_schema``), a commit timestamp is
``spanner.pending_commit_timestamp()``, a read by key a ``SELECT``. A step's rows go as one pipeline
(``executemany``: one statement a row, sent together), which PGAdapter runs as one batch: one round
trip for the step, as the official client sends its mutations with the commit, not one a row (50
rows through PGAdapter here: 29 ms instead of 308 ms a transaction). A read-only transaction is
``BEGIN READ ONLY``, its staleness PGAdapter's ``spanner.read_only_staleness``. A read-write
transaction that Spanner aborts (SQLSTATE 40001) is run again until the operation's deadline.

Every statement carries its operation's request tag as PGAdapter's statement hint
(``/*@STATEMENT_TAG='…'*/`` at the head of its text: no round trip of its own), and every read-write
transaction its transaction tag, set right after ``BEGIN`` (``SET spanner.transaction_tag``, which
PGAdapter takes only before the transaction's first statement): one local round trip to PGAdapter
per transaction, no Spanner RPC. PGAdapter puts both in the RequestOptions of what it sends to
Spanner (:mod:`spanload.spanner.request_tags`).
"""

from __future__ import annotations

import base64
import datetime as dt
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import psycopg
from google.cloud.spanner_v1 import COMMIT_TIMESTAMP
from psycopg.types.string import StrDumper

from spanload.spanner import deadline, request_tags, timing

PENDING_COMMIT_TIMESTAMP = "spanner.pending_commit_timestamp()"
CONNECT_TIMEOUT_S = 10
RETRY_BACKOFF_S = 0.002  # before running an aborted transaction again; doubles up to the max
RETRY_BACKOFF_MAX_S = 0.1
_KEY_SQL = (
    "SELECT column_name FROM information_schema.index_columns WHERE table_schema = 'public' "
    "AND table_name = $1 AND index_name = $2 AND ordinal_position IS NOT NULL ORDER BY ordinal_position"
)
PRIMARY_KEY = "PRIMARY_KEY"


class PgUnsupported(RuntimeError):
    """A transaction kind that PostgreSQL drivers cannot ask of PGAdapter."""


@dataclass
class Field:
    """A result column as the interpreter reads it: its name (its Spanner type is not known here)."""

    name: str
    type_: Any = None


class Result:
    """A query's rows and columns, iterable like the official client's streamed result."""

    def __init__(self, rows: list[tuple[Any, ...]], fields: list[Field]) -> None:
        self.rows = rows
        self.fields = fields

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.rows)


def driver_value(value: Any) -> Any:
    """A value the interpreter drew for the official client, as psycopg sends it (BYTES were base64)."""
    if value.__class__ is bytes:
        return base64.b64decode(value)
    return value


def positional(params: dict[str, Any] | None) -> list[Any]:
    """``{p1: a, p2: b}`` as ``[a, b]`` for ``$1``, ``$2`` (a number not given is NULL)."""
    if not params:
        return []
    top = max(int(name[1:]) for name in params)
    return [driver_value(params.get(f"p{i}")) for i in range(1, top + 1)]


class PgTransaction:
    """One transaction (or, outside one, single statements) on a connection."""

    def __init__(self, db: PgDatabase, conn: psycopg.Connection[Any]) -> None:
        self._db = db
        self._conn = conn

    def _run(self, sql: str, args: Sequence[Any]) -> psycopg.Cursor[Any]:
        hint = request_tags.pg_statement_hint()
        if not hint and (tag_sql := request_tags.pg_statement_tag_sql()):  # a tag no comment can carry
            self._conn.execute(tag_sql)
        timing.note_statement(hint + sql)  # the text PGAdapter sends on, as SPANNER_SYS records it
        return self._conn.execute(hint + sql, args, prepare=True)

    def execute_sql(self, sql: str, params: dict[str, Any] | None = None, **_: Any) -> Result:
        cur = self._run(sql, positional(params))
        fields = [Field(c.name) for c in cur.description or ()]
        return Result(cur.fetchall(), fields)

    def execute_update(self, sql: str, params: dict[str, Any] | None = None, **_: Any) -> int:
        return self._run(sql, positional(params)).rowcount

    def read(
        self, table: str, columns: Sequence[str], keyset: Any, index: str = "", limit: int = 0, **_: Any
    ) -> Result:
        key = self._db.key_columns(table, index or PRIMARY_KEY)
        rows: list[tuple[Any, ...]] = []
        for values in keyset.keys:
            where = " AND ".join(f"{c} = ${i + 1}" for i, c in enumerate(key[: len(values)]))
            sql = f"SELECT {', '.join(columns)} FROM {table} WHERE {where}" + (f" LIMIT {limit}" if limit else "")
            rows += self._run(sql, [driver_value(v) for v in values]).fetchall()
        return Result(rows, [Field(c) for c in columns])

    def _run_rows(self, statements: Iterable[tuple[str, list[Any]]]) -> None:
        """Each row's DML in order, a run of the same text as one pipeline (``executemany``), which
        PGAdapter sends to Spanner as one batch; one by one when the tag needs a statement of its own."""
        hint = request_tags.pg_statement_hint()
        for sql, group in groupby(statements, key=lambda s: s[0]):
            rows = [args for _, args in group]
            if not hint and request_tags.pg_statement_tag_sql():  # a SET before each statement
                for args in rows:
                    self._run(sql, args)
                continue
            for _ in rows:
                timing.note_statement(hint + sql)
            with self._conn.cursor() as cur:
                cur.executemany(hint + sql, rows)

    @staticmethod
    def _dml(sql_of: Callable[[list[str]], str], row: Sequence[Any]) -> tuple[str, list[Any]]:
        """One row's DML: a commit timestamp goes in the text, every other value as a parameter."""
        marks: list[str] = []
        args: list[Any] = []
        for value in row:
            if value == COMMIT_TIMESTAMP:
                marks.append(PENDING_COMMIT_TIMESTAMP)
            else:
                args.append(driver_value(value))
                marks.append(f"${len(args)}")
        return sql_of(marks), args

    def insert(self, table: str, columns: Sequence[str], values: Sequence[Sequence[Any]]) -> None:
        names = ", ".join(columns)
        self._run_rows(self._dml(lambda m: f"INSERT INTO {table} ({names}) VALUES ({', '.join(m)})", r) for r in values)

    def insert_or_update(self, table: str, columns: Sequence[str], values: Sequence[Sequence[Any]]) -> None:
        key = self._db.key_columns(table, PRIMARY_KEY)
        names = ", ".join(columns)
        sets = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
        tail = f" ON CONFLICT ({', '.join(key)}) DO " + (f"UPDATE SET {sets}" if sets else "NOTHING")
        self._run_rows(
            self._dml(lambda m: f"INSERT INTO {table} ({names}) VALUES ({', '.join(m)}){tail}", r) for r in values
        )

    def update(self, table: str, columns: Sequence[str], values: Sequence[Sequence[Any]]) -> None:
        key = self._db.key_columns(table, PRIMARY_KEY)
        order = [c for c in columns if c not in key] + [c for c in columns if c in key]
        at = {c: i for i, c in enumerate(columns)}
        n = len(order) - len([c for c in columns if c in key])

        def sql(m: list[str]) -> str:
            sets = ", ".join(f"{c} = {m[i]}" for i, c in enumerate(order[:n]))
            where = " AND ".join(f"{c} = {m[n + i]}" for i, c in enumerate(order[n:]))
            return f"UPDATE {table} SET {sets} WHERE {where}"

        self._run_rows(self._dml(sql, [row[at[c]] for c in order]) for row in values)

    def replace(self, table: str, columns: Sequence[str], values: Sequence[Sequence[Any]]) -> None:
        key = self._db.key_columns(table, PRIMARY_KEY)
        at = {c: i for i, c in enumerate(columns)}
        self._run_rows(self._delete_key(table, key, [row[at[c]] for c in key]) for row in values)
        self.insert(table, columns, values)

    def delete(self, table: str, keyset: Any) -> None:
        key = self._db.key_columns(table, PRIMARY_KEY)
        self._run_rows(self._delete_key(table, key, values) for values in keyset.keys)

    @staticmethod
    def _delete_key(table: str, key: list[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
        where = " AND ".join(f"{c} = ${i + 1}" for i, c in enumerate(key[: len(values)]))
        return f"DELETE FROM {table} WHERE {where}", [driver_value(v) for v in values]


def _tag_transaction(conn: psycopg.Connection[Any]) -> None:
    """Tag the read-write transaction just begun on ``conn`` (before its first statement), and note
    the Commit that ends it (attempted, as the official client's Commit RPCs are counted)."""
    timing.note_commit()
    tag_sql = request_tags.pg_transaction_tag_sql()
    if tag_sql:
        conn.execute(tag_sql)


class PgDatabase:
    """PGAdapter at ``address``, database ``database``: a pool of autocommit connections."""

    def __init__(self, address: str, database: str) -> None:
        host, _, port = address.rpartition(":")
        self._host, self._port, self._dbname = host, int(port), database
        self._lock = threading.Lock()
        self._idle: list[psycopg.Connection[Any]] = []
        self._conns: list[psycopg.Connection[Any]] = []
        self._staleness: dict[int, str] = {}  # each connection's spanner.read_only_staleness
        self._keys: dict[tuple[str, str], list[str]] = {}

    def _open(self) -> psycopg.Connection[Any]:
        conn = psycopg.connect(
            host=self._host,
            port=self._port,
            dbname=self._dbname,
            autocommit=True,
            cursor_factory=psycopg.RawCursor,
            connect_timeout=CONNECT_TIMEOUT_S,
        )
        conn.adapters.register_dumper(str, StrDumper)  # text, not unknown: nothing to infer
        # An aborted transaction comes back at once as 40001 and run_in_transaction runs it again, as
        # the official client does; PGAdapter's own replay fails anyway when a read's result changed
        # (read-then-write transactions on hot rows), after a second round of statements.
        conn.execute("SET spanner.retry_aborts_internally = false")
        with self._lock:
            self._conns.append(conn)
        return conn

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """An idle connection (a new one if none is), given back after the block; one that broke is dropped."""
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self._open()
        try:
            yield conn
        finally:
            if conn.closed or conn.broken:
                with self._lock:
                    self._conns.remove(conn)
            else:
                with self._lock:
                    self._idle.append(conn)

    def warm(self) -> None:
        """Open one connection now, so that the first execution does not wait for it."""
        with self.connection():
            pass

    def key_columns(self, table: str, index: str) -> list[str]:
        """The key columns of ``table``'s primary key or of its index ``index``, in key order: read
        once, on a connection of its own (Spanner answers no INFORMATION_SCHEMA query in a read-write
        transaction)."""
        found = self._keys.get((table, index))
        if found is None:
            with self.connection() as conn:
                rows = conn.execute(_KEY_SQL, [table, index], prepare=True).fetchall()
            if not rows:
                raise ValueError(f"table {table!r} has no {'primary key' if index == PRIMARY_KEY else index}")
            found = self._keys[(table, index)] = [str(r[0]) for r in rows]
        return found

    def _staleness_of(
        self,
        conn: psycopg.Connection[Any],
        exact: dt.timedelta | None,
        bound: dt.timedelta | None,
        at: dt.datetime | None = None,
    ) -> None:
        wanted = "STRONG"
        if at is not None:
            wanted = f"READ_TIMESTAMP {at.astimezone(dt.UTC).strftime('%Y-%m-%dT%H:%M:%S.%fZ')}"
        elif exact is not None:
            wanted = f"EXACT_STALENESS {int(exact.total_seconds() * 1000)}ms"
        elif bound is not None:
            wanted = f"MAX_STALENESS {int(bound.total_seconds() * 1000)}ms"
        if self._staleness.get(id(conn), "STRONG") != wanted:  # a session setting: sent only when it changes
            conn.execute(f"SET spanner.read_only_staleness = '{wanted}'")
            self._staleness[id(conn)] = wanted

    @contextmanager
    def snapshot(
        self,
        multi_use: bool = False,
        exact_staleness: dt.timedelta | None = None,
        max_staleness: dt.timedelta | None = None,
        read_timestamp: dt.datetime | None = None,
        **_: Any,
    ) -> Iterator[PgTransaction]:
        with self.connection() as conn:
            self._staleness_of(conn, exact_staleness, None if multi_use else max_staleness, read_timestamp)
            if not multi_use:  # single statements in autocommit: PGAdapter runs each as a single-use read
                yield PgTransaction(self, conn)
                return
            conn.read_only = True
            try:
                with conn.transaction():
                    yield PgTransaction(self, conn)
            finally:
                conn.read_only = False

    @contextmanager
    def batch(self, **_: Any) -> Iterator[PgTransaction]:
        with self.connection() as conn, conn.transaction():
            _tag_transaction(conn)
            yield PgTransaction(self, conn)

    def run_in_transaction(self, work: Callable[[PgTransaction], Any], **_: Any) -> Any:
        give_up = time.monotonic() + deadline.timeout_s()
        backoff = RETRY_BACKOFF_S
        with self.connection() as conn:
            while True:
                try:
                    with conn.transaction():
                        _tag_transaction(conn)
                        return work(PgTransaction(self, conn))
                except psycopg.errors.SerializationFailure:  # Spanner aborted it: run it again
                    if time.monotonic() + backoff >= give_up:
                        raise
                    time.sleep(backoff)
                    backoff = min(backoff * 2, RETRY_BACKOFF_MAX_S)

    def mutation_groups(self) -> Any:
        raise PgUnsupported("transaction: batch_write has no PostgreSQL statement; use read_write or single_use")

    def execute_partitioned_dml(self, *_: Any, **__: Any) -> int:
        raise PgUnsupported("transaction: partitioned_dml is not run through PGAdapter; use read_write")

    def close(self) -> None:
        with self._lock:
            conns, self._conns, self._idle = self._conns, [], []
        for conn in conns:
            conn.close()
