"""Issue 30's "untested" list: the write benchmark's (Tweets) and the session-pool agents'
(leaderboard Scores) preload loaders, driven by the load phase's own driver against the local
Spanner with the official client: every row there, shaped like the updater's, and a second load
that finds the table full and skips every batch."""

from __future__ import annotations

import random
import threading

import pytest

from spanload.model.config import SchemaKind, Workload
from spanload.spanner import client as spanner_client
from spanload.spanner import schemas
from spanload.workers.preload import PRELOAD_VERSION, PRELOAD_WRITER_ID, loader_for, run_preload
from tests.engine.conftest import LocalTarget

ROWS = 2_500  # two full batches of 1,000 and a short one


@pytest.mark.parametrize(
    ("workload", "kind"),
    [(Workload.WRITE_BENCHMARK, SchemaKind.TWEETS), (Workload.SESSION_POOL, SchemaKind.LEADERBOARD)],
)
def test_a_schemas_loader_fills_its_table_with_the_updaters_rows_and_skips_a_full_one(
    local_spanner: LocalTarget, workload: Workload, kind: SchemaKind
) -> None:
    config = local_spanner.config({"workload": workload.value})
    spec = schemas.spec(kind)
    admin = spanner_client.make_client(config.target, local_spanner.address)
    schemas.ensure_schema(admin, config.target, kind)
    admin.close()
    conn = spanner_client.connect(config.target, config.client, local_spanner.address)
    try:
        loader = loader_for(config)
        batches: list[tuple[int, int]] = []
        lock = threading.Lock()

        def on_batch(rows: int, skipped: int) -> None:
            with lock:
                batches.append((rows, skipped))

        run_preload(lambda: conn.database, loader, 0, ROWS, resume=False, on_batch=on_batch, stop=threading.Event())
        assert sorted(batches) == [(500, 0), (1000, 0), (1000, 0)]
        assert loader.count(conn.database, 0, None) == ROWS and loader.count(conn.database, 1000, 2000) == 1000

        columns = (spec.key, *spec.payload_columns, "Version", "WriterId")
        with conn.database.snapshot() as snapshot:
            stored = [
                tuple(row)
                for row in snapshot.execute_sql(
                    f"SELECT {', '.join(columns)} FROM {spec.table} WHERE LastUpdated IS NOT NULL ORDER BY {spec.key}"
                )
            ]
        expected = []
        for lo in range(0, ROWS, 1000):  # each batch's payload comes from a generator seeded with its first key
            rng = random.Random(lo)
            expected += [
                (key, *spec.payload(rng, key), PRELOAD_VERSION, PRELOAD_WRITER_ID)
                for key in range(lo, min(lo + 1000, ROWS))
            ]
        assert stored == expected

        batches.clear()
        run_preload(lambda: conn.database, loader, 0, ROWS, resume=True, on_batch=on_batch, stop=threading.Event())
        assert sorted(batches) == [(500, 500), (1000, 1000), (1000, 1000)]  # found full: nothing written again
    finally:
        conn.close()
