"""What the five transactions share: their inputs' random source, how a read-write transaction
is run and its attempts counted, and small read helpers."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from google.cloud.spanner_v1 import KeySet

from spanload.model.tpcc import DISTRICTS
from spanload.spanner import deadline
from spanload.workers.tpcc.rand import RunRandom
from spanload.workers.tpcc.statements import GOOGLESQL, Statements

Database = Any  # google.cloud.spanner_v1.database.Database
Transaction = Any

BY_NAME_PCT = 60  # Payment and Order-Status select the customer by last name 60 % of the time
REMOTE_PAYMENT_PCT = 15  # Payment by a customer of another warehouse (when there is one)
REMOTE_LINE_PCT = 1  # New-Order line supplied by another warehouse (when there is one)


@dataclass
class Outcome:
    """What one business transaction did: its database transactions run again after an abort,
    whether a New-Order rolled back on purpose, and Delivery's districts without an order."""

    retries: int = 0
    rolled_back: bool = False
    skipped: int = 0
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Terminal:
    """Who runs a transaction: its home warehouse, the scale, the random inputs and the queries in
    the database's dialect."""

    w_id: int
    warehouses: int
    rand: RunRandom
    sql: Statements = GOOGLESQL

    @property
    def rng(self) -> random.Random:
        return self.rand.rng

    def district(self) -> int:
        return self.rng.randint(1, DISTRICTS)

    def other_warehouse(self) -> int:
        """A warehouse other than the home one (the caller checks there is one)."""
        other = self.rng.randint(1, self.warehouses - 1)
        return other if other < self.w_id else other + 1

    def pct(self, percent: int) -> bool:
        return self.rng.randint(1, 100) <= percent


def read_write(database: Database, outcome: Outcome, work: Callable[[Transaction], Any]) -> Any:
    """Run ``work`` in a read-write transaction (the client runs it again after an abort), within
    the operation's deadline; ``outcome.retries`` counts the runs after the first."""
    first = True

    def counted(transaction: Transaction) -> Any:
        nonlocal first
        if not first:
            outcome.retries += 1
        first = False
        return work(transaction)

    return database.run_in_transaction(counted, timeout_secs=deadline.timeout_s())


def keyset(keys: Iterable[tuple[Any, ...]]) -> KeySet:
    """A key set of these primary keys."""
    return KeySet(keys=[list(k) for k in keys])  # type: ignore[no-untyped-call]


def read_row(snapshot: Any, table: str, columns: tuple[str, ...], key: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """One row by key (a transaction or a snapshot), or None."""
    rows = list(snapshot.read(table, columns, keyset([key])))
    return tuple(rows[0]) if rows else None


def must_row(snapshot: Any, table: str, columns: tuple[str, ...], key: tuple[Any, ...]) -> tuple[Any, ...]:
    row = read_row(snapshot, table, columns, key)
    if row is None:
        raise MissingRow(f"{table} {key} is missing: is the TPC-C database loaded?")
    return row


def customer_by_name(t: Terminal, snapshot: Any, w_id: int, d_id: int, last: str) -> int | None:
    """Clause 2.5.2.2: the customers with that last name sorted by first name; the one at position
    n/2 rounded up. None if the district has nobody by that name."""
    ids = [row[0] for row in t.sql.rows(snapshot, "customer_by_name", w=w_id, d=d_id, last=last)]
    return ids[(len(ids) + 1) // 2 - 1] if ids else None


class MissingRow(LookupError):
    """A row every loaded TPC-C database has is not there."""
