"""Read-write transactions that read after their own writes, on disjoint rows, side by side: how many abort.

    /work/main/.venv/bin/python bench/own_writes.py [--threads 4] [--txns 50] [--binary PATH]

Each thread runs transactions with the official Python client (run_in_transaction) on its own row: UPDATE the row,
SELECT it back (a query that sees the transaction's own write), UPDATE it again, commit. In Spanner such transactions
lock only their own rows, so none should abort. The figures: commits, attempts that aborted and were run again,
commits per second. --binary runs another build of the server (e.g. one from before row-level checks) to compare.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from _common import fmt_rate

from tests.localspanner.server_process import BINARY, start_server

PROJECT = "spanload-bench"
DDL = ["CREATE TABLE Acc (Id INT64 NOT NULL, Bal INT64 NOT NULL) PRIMARY KEY (Id)"]


def run(threads: int, txns: int, binary: Path) -> None:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud.spanner_v1 import Client

    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp) / "server.log", binary=binary)
        try:
            os.environ["SPANNER_EMULATOR_HOST"] = server.address
            os.environ["SPANNER_DISABLE_BUILTIN_METRICS"] = "true"
            client = Client(project=PROJECT, credentials=AnonymousCredentials(), disable_builtin_metrics=True)
            instance_id, database_id = "bench-" + uuid.uuid4().hex[:8], "db-" + uuid.uuid4().hex[:8]
            config = f"projects/{PROJECT}/instanceConfigs/emulator-config"
            client.instance(instance_id, configuration_name=config, node_count=1).create().result(60)
            db = client.instance(instance_id).database(database_id, ddl_statements=DDL)
            db.create().result(60)
            with db.batch() as batch:
                batch.insert("Acc", ["Id", "Bal"], [(i, 0) for i in range(threads)])
            attempts = [0] * threads

            def worker(row: int) -> None:
                def work(tx: Any) -> None:
                    attempts[row] += 1
                    tx.execute_update(f"UPDATE Acc SET Bal = Bal + 1 WHERE Id = {row}")
                    list(tx.execute_sql(f"SELECT Bal FROM Acc WHERE Id = {row}"))
                    tx.execute_update(f"UPDATE Acc SET Bal = Bal + 1 WHERE Id = {row} AND Bal > 0")

                for _ in range(txns):
                    db.run_in_transaction(work)

            start = time.monotonic()
            pool = [threading.Thread(target=worker, args=(r,)) for r in range(threads)]
            for t in pool:
                t.start()
            for t in pool:
                t.join()
            elapsed = time.monotonic() - start
            with db.snapshot() as snap:
                total = next(iter(snap.execute_sql("SELECT SUM(Bal) FROM Acc")))[0]
        finally:
            server.stop()
    commits = threads * txns
    print(f"server: {binary}")
    print(f"threads {threads}, transactions per thread {txns}, rows written {total} (expected {2 * commits})")
    print(
        f"commits {commits}, aborted attempts run again {sum(attempts) - commits}, "
        f"commits/s {fmt_rate(commits / elapsed)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--txns", type=int, default=50)
    parser.add_argument("--binary", type=Path, default=BINARY)
    args = parser.parse_args()
    if args.threads < 1 or args.txns < 1:
        parser.error("--threads and --txns must be at least 1")
    run(args.threads, args.txns, args.binary)


if __name__ == "__main__":
    main()
