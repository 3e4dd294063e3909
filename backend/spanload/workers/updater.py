"""The updater: write transactions on an open-loop Poisson schedule.

Modes:
- ``mutations``: one single-use commit (``database.batch()``, one Commit RPC) upserting a uniform
  1..2m random keys;
- ``dml``: a read-write transaction running one ``INSERT OR UPDATE`` DML statement per row;
- ``batch_insert``: ``batch_rows`` new rows per single-use commit, spread over the key space
  (the 2PC-participants report's 6 inserts per commit).

Each transaction is timed from its actual and its intended start.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import Any

from spanload.model import tags
from spanload.model.config import UpdaterConfig, UpdaterMode
from spanload.model.protocol import Counter
from spanload.model.samples import Gauge, Op
from spanload.spanner import deadline, request_tags, timing
from spanload.spanner.schemas import SchemaSpec
from spanload.workers.interp.ledger import FreshKeys, WriteLedger
from spanload.workers.interp.operation import literal_type
from spanload.workers.pacing import PacedLoad, Pacer, share, share_threads
from spanload.workers.stats import UNKNOWN_OUTCOME, WorkerStats

logger = logging.getLogger(__name__)

US_PER_S = 1_000_000
US_PER_MS = 1000


class Updater(PacedLoad):
    def __init__(
        self,
        database: Callable[[], Any],
        schema: SchemaSpec,
        config: UpdaterConfig,
        stats: WorkerStats,
        worker: int,
        workers: int,
        writer_id: str,
        fresh_keys: FreshKeys | None = None,
    ) -> None:
        self._database = database
        self._schema = schema
        self._stats = stats
        self._worker = worker
        self._workers = workers
        self.writer_id = writer_id
        self._rng = random.Random()
        self.config = config
        self.ledger = WriteLedger(worker, workers, config.key_space, fresh_keys=fresh_keys)
        pacer = Pacer(
            "updater",
            self._transaction,
            share(config.transactions_per_second, worker, workers),
            share_threads(config.parallelism, worker, workers),
        )
        super().__init__(pacer, config.enabled)
        self._update_sql, self._insert_sql = dml_statements(schema)

    def apply(self, config: UpdaterConfig) -> None:
        self.config = config
        self._pacer.set_rate(share(config.transactions_per_second, self._worker, self._workers))
        self._pacer.set_parallelism(share_threads(config.parallelism, self._worker, self._workers))
        self.ledger.set_key_space(config.key_space)
        self.set_enabled(config.enabled)

    def gauges(self) -> dict[str, float]:
        return {Gauge.UPDATER_TARGET_TPS: self._pacer.rate, Gauge.UPDATER_BEHIND: float(self._pacer.behind)}

    # -- one transaction, on a pool thread ---------------------------------------------------------

    def _rows(self, writes: list[tuple[int, int]]) -> list[tuple[Any, ...]]:
        from google.cloud.spanner_v1 import COMMIT_TIMESTAMP

        payload = self._schema.payload
        return [(key, *payload(self._rng, key), version, self.writer_id, COMMIT_TIMESTAMP) for key, version in writes]

    def _transaction(self, intended: float, actual: float) -> None:
        config = self.config
        match config.mode:
            case UpdaterMode.BATCH_INSERT:
                writes = self.ledger.reserve(config.batch_rows, fresh=True)
            case _:
                writes = self.ledger.reserve(self._rng.randint(1, 2 * config.mutations_per_transaction))
        request_tags.use(tags.UPDATER)
        timing.begin()
        try:
            with deadline.operation():
                # timeout_secs bounds the client's own ABORTED retry loop; the RPCs are bounded
                # by the operation's deadline (spanner.deadline)
                match config.mode:
                    case UpdaterMode.MUTATIONS:
                        with self._database().batch(timeout_secs=deadline.timeout_s()) as batch:
                            batch.insert_or_update(self._schema.table, self._schema.write_columns, self._rows(writes))
                    case UpdaterMode.BATCH_INSERT:
                        with self._database().batch(timeout_secs=deadline.timeout_s()) as batch:
                            batch.insert(self._schema.table, self._schema.write_columns, self._rows(writes))
                    case UpdaterMode.DML:
                        self._run_dml(writes)
        except Exception as err:
            self.ledger.failed(writes, outcome_unknown=isinstance(err, UNKNOWN_OUTCOME))
            self._stats.failed(Op.UPDATER_TXN_FAILED, err, (time.perf_counter() - actual) * US_PER_S)
            timing.take()
            logger.debug("updater transaction failed: %s", err)
            return
        self._stats.succeeded(Op.UPDATER_TXN, actual, intended)
        self.ledger.committed(writes)
        self._stats.count(Counter.TRANSACTIONS)
        self._stats.count(Counter.MUTATIONS, len(writes))

    def _run_dml(self, writes: list[tuple[int, int]]) -> None:
        """Upsert by DML in one read-write transaction: an UPDATE per row, then an INSERT for the
        rows the UPDATE did not find (INSERT OR UPDATE is newer than some servers)."""
        rows = [row[:-1] for row in self._rows(writes)]  # the commit timestamp is in the SQL
        attempts = 0

        def run(transaction: Any, sql: str, batch: list[tuple[Any, ...]]) -> list[int]:
            statements = [
                (sql, {f"p{i}": v for i, v in enumerate(row)}, {f"p{i}": literal_type(v) for i, v in enumerate(row)})
                for row in batch
            ]
            status, counts = transaction.batch_update(
                statements, retry=deadline.rpc_retry(), timeout=deadline.rpc_timeout()
            )
            if status.code != 0:
                raise DmlError(f"batch DML failed with code {status.code}: {status.message}")
            return list(counts)

        def work(transaction: Any) -> None:
            nonlocal attempts
            attempts += 1
            counts = run(transaction, self._update_sql, rows)
            missing = [row for row, count in zip(rows, counts, strict=True) if count == 0]
            if missing:
                run(transaction, self._insert_sql, missing)

        try:
            self._database().run_in_transaction(work, timeout_secs=deadline.timeout_s())
        finally:
            if attempts > 1:
                self._stats.count(Counter.RETRIES, attempts - 1)


def dml_statements(schema: SchemaSpec) -> tuple[str, str]:
    """(UPDATE by key, INSERT) of every write column; ``@p0`` is the key, the commit timestamp is
    PENDING_COMMIT_TIMESTAMP()."""
    cols = schema.write_columns
    values = [f"@p{i}" for i in range(len(cols) - 1)]
    sets = ", ".join(f"{c} = {v}" for c, v in zip(cols[1:-1], values[1:], strict=True))
    update = f"UPDATE {schema.table} SET {sets}, LastUpdated = PENDING_COMMIT_TIMESTAMP() WHERE {schema.key} = @p0"
    insert = f"INSERT INTO {schema.table} ({', '.join(cols)}) VALUES ({', '.join(values)}, PENDING_COMMIT_TIMESTAMP())"
    return update, insert


class DmlError(RuntimeError):
    """A statement of a batch DML failed (the client reports it as a status, not an exception)."""
