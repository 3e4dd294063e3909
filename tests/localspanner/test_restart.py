"""Issue 8, "Storage": one SQLite file per database under --data-dir; data, schema and clock survive restarts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.cloud.spanner_v1 import COMMIT_TIMESTAMP, Client

from .conftest import OPERATION_TIMEOUT_S, create_instance, make_client, unique
from .server_process import ServerProcess, start_server

SQLITE_MAGIC = b"SQLite format 3\x00"
DDL = [
    """CREATE TABLE Kept (Id INT64 NOT NULL, V STRING(MAX),
        StampedAt TIMESTAMP OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (Id)""",
    "CREATE INDEX KeptByV ON Kept (V)",
]


def _sqlite_files(root: Path) -> set[Path]:
    found = set()
    for path in root.rglob("*"):
        if path.is_file() and not path.name.endswith(("-wal", "-shm", "-journal")):
            with path.open("rb") as f:
                if f.read(16) == SQLITE_MAGIC:
                    found.add(path)
    return found


class Restartable:
    """A server on a data dir that a test can stop and start again, with a client for each life."""

    def __init__(self, data_dir: Path, log_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.data_dir = data_dir
        self.log_dir = log_dir
        self.monkeypatch = monkeypatch
        self.lives = 0
        self.server: ServerProcess | None = None

    def start(self) -> Client:
        self.lives += 1
        self.server = start_server(self.log_dir / f"server-{self.lives}.log", data_dir=self.data_dir)
        self.monkeypatch.setenv("SPANNER_EMULATOR_HOST", self.server.address)
        return make_client(self.server.address)

    def stop(self) -> None:
        if self.server is not None:
            code = self.server.stop()
            assert code == 0, f"server exited {code} on SIGTERM:\n{self.server.log_tail()}"
            self.server = None


@pytest.fixture
def restartable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Restartable]:
    r = Restartable(tmp_path / "data", tmp_path, monkeypatch)
    r.data_dir.mkdir()
    yield r
    if r.server is not None:
        r.server.stop()


def test_one_sqlite_file_per_database(restartable: Restartable) -> None:
    client = restartable.start()
    instance = create_instance(client, unique("files"))
    before = _sqlite_files(restartable.data_dir)
    first = instance.database(unique("db"), ddl_statements=DDL[:1])
    first.create().result(OPERATION_TIMEOUT_S)
    after_first = _sqlite_files(restartable.data_dir)
    second = instance.database(unique("db"), ddl_statements=DDL[:1])
    second.create().result(OPERATION_TIMEOUT_S)
    after_second = _sqlite_files(restartable.data_dir)
    assert len(after_first - before) == 1, f"creating a database added {sorted(after_first - before)}"
    assert len(after_second - after_first) == 1, f"the second database added {sorted(after_second - after_first)}"
    second.drop()
    assert _sqlite_files(restartable.data_dir) == after_first, "dropping a database removes its file"
    restartable.stop()


def _read_all(database: Any) -> list[list[Any]]:
    with database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql("SELECT Id, V, StampedAt FROM Kept ORDER BY Id")]


def test_data_schema_and_clock_survive_a_restart(restartable: Restartable) -> None:
    client = restartable.start()
    instance_id, database_id = unique("keep"), unique("db")
    instance = create_instance(client, instance_id)
    database = instance.database(database_id, ddl_statements=DDL)
    database.create().result(OPERATION_TIMEOUT_S)
    stamps = []
    for i in range(5):
        with database.batch() as batch:
            batch.insert("Kept", ["Id", "V", "StampedAt"], [(i, f"v{i}", COMMIT_TIMESTAMP)])
        stamps.append(batch.committed)
    database.reload()
    ddl_before = list(database.ddl_statements)
    rows_before = _read_all(database)
    restartable.stop()

    client = restartable.start()
    instance = client.instance(instance_id)
    assert instance.exists(), "the instance must survive a restart"
    database = instance.database(database_id)
    assert database.exists(), "the database must survive a restart"
    database.reload()
    assert list(database.ddl_statements) == ddl_before, "the schema must survive a restart"
    assert _read_all(database) == rows_before, "the data must survive a restart"
    with database.snapshot() as snap:
        via_index = [list(r) for r in snap.execute_sql("SELECT Id FROM Kept@{FORCE_INDEX=KeptByV} WHERE V = 'v3'")]
    assert via_index == [[3]], "the index must survive a restart"
    with database.batch() as batch:
        batch.insert("Kept", ["Id", "V", "StampedAt"], [(100, "after", COMMIT_TIMESTAMP)])
    assert batch.committed > max(stamps), (
        f"commit timestamp after the restart {batch.committed} is not after the last one before {max(stamps)}"
    )
    restartable.stop()


def test_past_versions_survive_a_restart(restartable: Restartable) -> None:
    client = restartable.start()
    instance_id, database_id = unique("hist"), unique("db")
    database = create_instance(client, instance_id).database(database_id, ddl_statements=DDL[:1])
    database.create().result(OPERATION_TIMEOUT_S)
    with database.batch() as batch:
        batch.insert("Kept", ["Id", "V"], [(1, "old")])
    old = batch.committed
    with database.batch() as batch:
        batch.update("Kept", ["Id", "V"], [(1, "new")])
    restartable.stop()

    client = restartable.start()
    database = client.instance(instance_id).database(database_id)
    with database.snapshot(read_timestamp=old) as snap:
        rows = [list(r) for r in snap.execute_sql("SELECT V FROM Kept WHERE Id = 1")]
    assert rows == [["old"]], "a read at a timestamp within the retention window must work after a restart"
    restartable.stop()


def test_without_data_dir_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    server = start_server(tmp_path / "server.log", cwd=workdir)
    try:
        monkeypatch.setenv("SPANNER_EMULATOR_HOST", server.address)
        client = make_client(server.address)
        database = create_instance(client, unique("mem")).database(unique("db"), ddl_statements=DDL[:1])
        database.create().result(OPERATION_TIMEOUT_S)
        with database.batch() as batch:
            batch.insert("Kept", ["Id", "V"], [(1, "in memory")])
        with database.snapshot() as snap:
            assert [list(r) for r in snap.execute_sql("SELECT V FROM Kept")] == [["in memory"]]
        written = sorted(p.name for p in workdir.rglob("*"))
        assert written == [], f"without --data-dir the server wrote {written}"
    finally:
        assert server.stop() == 0
