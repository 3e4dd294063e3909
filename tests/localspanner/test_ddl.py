"""Issue 8, "DDL": column types and options, generated columns, FARM_FINGERPRINT, interleaving, indexes."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import COMMIT_TIMESTAMP, KeyRange, KeySet, TypeCode, param_types

from tests.helpers import wait_for

from .conftest import OPERATION_TIMEOUT_S, DatabaseFactory, SpannerDb
from .farmhash import change_watcher_shard, farm_fingerprint, spanner_mod
from .schemas import CHANGE_WATCHER_DDL

ALL_TYPES = [
    """CREATE TABLE AllTypes (
        Id INT64 NOT NULL,
        I INT64, F FLOAT64, F32 FLOAT32, B BOOL, S10 STRING(10), SMax STRING(MAX), By16 BYTES(16),
        ByMax BYTES(MAX), Ts TIMESTAMP, D DATE, J JSON, N NUMERIC,
        AI ARRAY<INT64>, AS_ ARRAY<STRING(MAX)>, AF32 ARRAY<FLOAT32>,
    ) PRIMARY KEY (Id)""",
]
DEFAULTS = [
    """CREATE TABLE Defaults (
        Id INT64 NOT NULL,
        Status STRING(20) NOT NULL DEFAULT ('new'),
        Points INT64 DEFAULT (10 * 3),
        Created TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true),
    ) PRIMARY KEY (Id)""",
]
GENERATED = [
    """CREATE TABLE Generated (
        Id INT64 NOT NULL,
        A INT64, B INT64, Name STRING(MAX),
        Total INT64 AS (A * B + 1) STORED,
        Rem INT64 AS (MOD(A, 7)) STORED,
        Fp INT64 AS (FARM_FINGERPRINT(Name)) STORED,
        AText STRING(MAX) AS (CAST(A AS STRING)) STORED,
    ) PRIMARY KEY (Id)""",
]
CHANGES = CHANGE_WATCHER_DDL
MUSIC = [
    "CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (SingerId)",
    """CREATE TABLE Albums (SingerId INT64 NOT NULL, AlbumId INT64 NOT NULL, Title STRING(MAX))
        PRIMARY KEY (SingerId, AlbumId), INTERLEAVE IN PARENT Singers ON DELETE CASCADE""",
    """CREATE TABLE Songs (SingerId INT64 NOT NULL, AlbumId INT64 NOT NULL, SongId INT64 NOT NULL, Title STRING(MAX))
        PRIMARY KEY (SingerId, AlbumId, SongId), INTERLEAVE IN PARENT Albums ON DELETE CASCADE""",
    """CREATE TABLE Concerts (SingerId INT64 NOT NULL, ConcertId INT64 NOT NULL, Venue STRING(MAX))
        PRIMARY KEY (SingerId, ConcertId), INTERLEAVE IN PARENT Singers ON DELETE NO ACTION""",
    "CREATE UNIQUE INDEX SingersByName ON Singers (Name)",
    "CREATE INDEX AlbumsByTitle ON Albums (SingerId, Title) STORING (AlbumId), INTERLEAVE IN Singers",
]
SCHEMAS = {"all_types": ALL_TYPES, "defaults": DEFAULTS, "generated": GENERATED, "changes": CHANGES, "music": MUSIC}


@pytest.fixture(scope="module")
def schema_dbs(make_database: DatabaseFactory) -> Callable[[str], SpannerDb]:
    """One database per feature, made on first use, so one unsupported feature blocks only its tests."""
    made: dict[str, SpannerDb] = {}

    def get(name: str) -> SpannerDb:
        if name not in made:
            made[name] = make_database(SCHEMAS[name])
        return made[name]

    return get


def _query(
    db: SpannerDb, sql: str, params: dict[str, Any] | None = None, types: dict[str, Any] | None = None
) -> list[list[Any]]:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql(sql, params=params, param_types=types)]


def test_create_table_with_every_column_type(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("all_types")
    with ddb.database.batch() as batch:
        batch.insert(
            "AllTypes",
            ["Id", "I", "F32", "S10", "By16", "AF32"],
            [(1, 5, 1.25, "0123456789", b"AAECAw==", [0.5, None])],
        )
    assert _query(ddb, "SELECT I, F32, S10, By16, AF32 FROM AllTypes WHERE Id = 1") == [
        [5, 1.25, "0123456789", b"AAECAw==", [0.5, None]]
    ]
    with ddb.database.snapshot() as snap:
        result = snap.execute_sql("SELECT * FROM AllTypes")
        list(result)
        types = {f.name: f.type_.code for f in result.fields}
    assert types == {
        "Id": TypeCode.INT64, "I": TypeCode.INT64, "F": TypeCode.FLOAT64, "F32": TypeCode.FLOAT32,
        "B": TypeCode.BOOL, "S10": TypeCode.STRING, "SMax": TypeCode.STRING, "By16": TypeCode.BYTES,
        "ByMax": TypeCode.BYTES, "Ts": TypeCode.TIMESTAMP, "D": TypeCode.DATE, "J": TypeCode.JSON,
        "N": TypeCode.NUMERIC, "AI": TypeCode.ARRAY, "AS_": TypeCode.ARRAY, "AF32": TypeCode.ARRAY,
    }  # fmt: skip


def test_string_length_limit_is_enforced(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("all_types")
    with pytest.raises(gexc.FailedPrecondition), ddb.database.batch() as batch:
        batch.insert("AllTypes", ["Id", "S10"], [(2, "01234567890")])
    assert _query(ddb, "SELECT COUNT(*) FROM AllTypes WHERE Id = 2") == [[0]]


def test_not_null_default_and_commit_timestamp_option(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("defaults")
    with ddb.database.batch() as batch:
        batch.insert("Defaults", ["Id", "Created"], [(1, COMMIT_TIMESTAMP)])
        batch.insert("Defaults", ["Id", "Status", "Points", "Created"], [(2, "done", None, COMMIT_TIMESTAMP)])
    rows = _query(ddb, "SELECT Id, Status, Points, Created FROM Defaults ORDER BY Id")
    assert [r[:3] for r in rows] == [[1, "new", 30], [2, "done", None]], "DEFAULT fills only omitted columns"
    assert rows[0][3] == batch.committed and rows[1][3] == batch.committed
    ddb.database.run_in_transaction(
        lambda tx: tx.execute_update("INSERT INTO Defaults (Id, Created) VALUES (3, PENDING_COMMIT_TIMESTAMP())")
    )
    assert _query(ddb, "SELECT Status, Points FROM Defaults WHERE Id = 3") == [["new", 30]]
    with pytest.raises(gexc.FailedPrecondition), ddb.database.batch() as batch:
        batch.insert("Defaults", ["Id"], [(4,)])  # Created is NOT NULL and has no default


def test_stored_generated_columns(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("generated")
    rows = [(1, 6, 7, "alpha"), (2, -10, 3, "beta"), (3, 0, 0, "")]
    with ddb.database.batch() as batch:
        batch.insert("Generated", ["Id", "A", "B", "Name"], rows)
    got = _query(ddb, "SELECT Id, Total, Rem, Fp, AText FROM Generated ORDER BY Id")
    want = [[i, a * b + 1, spanner_mod(a, 7), farm_fingerprint(name), str(a)] for i, a, b, name in rows]
    assert got == want
    with ddb.database.batch() as batch:
        batch.update("Generated", ["Id", "A"], [(1, 8)])
    assert _query(ddb, "SELECT Total, Rem, AText FROM Generated WHERE Id = 1") == [[57, 1, "8"]], "recomputed on update"
    # a generated column cannot be written: Cloud Spanner answers FAILED_PRECONDITION "Cannot write
    # into generated column ..." (as users of its Java client report, spring-cloud-gcp issue 3992)
    generated = pytest.raises(gexc.FailedPrecondition, match=r"Cannot write into generated column Generated\.Total")
    with generated, ddb.database.batch() as batch:
        batch.update("Generated", ["Id", "Total"], [(1, 5)])


FINGERPRINT_VECTORS = {
    "1footrue": -1541654101129638711,
    "2applefalse": 2794438866806483259,
    "3true": -4880158226897771312,
    "alphabet": -2427165924636348523,
    "": -7286425919675154353,
}


def test_farm_fingerprint_equals_spanner(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("all_types")
    rng = random.Random(19)
    long_ones = ["x" * 17, "y" * 33, "z" * 65, "w" * 300]
    samples = [*FINGERPRINT_VECTORS, "é✓", *long_ones, str(uuid.UUID(int=rng.getrandbits(128)))]
    for s in FINGERPRINT_VECTORS:
        assert farm_fingerprint(s) == FINGERPRINT_VECTORS[s], "the test's own reference is wrong"
    got = _query(
        ddb,
        "SELECT s, FARM_FINGERPRINT(s), FARM_FINGERPRINT(CAST(s AS BYTES)) "
        "FROM UNNEST(@ss) AS s WITH OFFSET o ORDER BY o",
        {"ss": samples},
        {"ss": param_types.Array(param_types.STRING)},
    )
    for s, fp_string, fp_bytes in got:
        assert fp_string == farm_fingerprint(s), (
            f"FARM_FINGERPRINT({s!r}) = {fp_string}, Spanner gives {farm_fingerprint(s)}"
        )
        assert fp_bytes == fp_string, "STRING and BYTES of the same bytes fingerprint alike"
    assert [r[0] for r in got] == samples


def test_change_watcher_shard_id_matches_spanner(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("changes")
    rng = random.Random(37)
    ids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(200)]
    with ddb.database.batch() as batch:
        batch.insert("DataChanges", ["Id", "Payload", "LastUpdated"], [(i, "p", COMMIT_TIMESTAMP) for i in ids])
    got = dict(_query(ddb, "SELECT Id, ShardId FROM DataChanges"))
    expected = {i: change_watcher_shard(i) for i in ids}
    wrong = {i: (got.get(i), expected[i]) for i in ids if got.get(i) != expected[i]}
    assert not wrong, f"{len(wrong)} ShardIds differ from Spanner's (got, want): {list(wrong.items())[:3]}"
    assert all(-18 <= v <= 18 for v in got.values())
    assert min(got.values()) < 0 < max(got.values()), "MOD keeps the sign of a negative fingerprint"


def test_interleave_on_delete_cascade_and_no_action(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("music")
    with ddb.database.batch() as batch:
        batch.insert("Singers", ["SingerId", "Name"], [(1, "Ann"), (2, "Bob")])
        batch.insert("Albums", ["SingerId", "AlbumId", "Title"], [(1, 1, "A1"), (1, 2, "A2"), (2, 1, "B1")])
        batch.insert("Songs", ["SingerId", "AlbumId", "SongId", "Title"], [(1, 1, 1, "s"), (1, 2, 1, "t")])
        batch.insert("Concerts", ["SingerId", "ConcertId", "Venue"], [(2, 1, "Hall")])
    with ddb.database.batch() as batch:
        batch.delete("Singers", KeySet(keys=[[1]]))
    assert _query(ddb, "SELECT SingerId, AlbumId FROM Albums ORDER BY SingerId, AlbumId") == [[2, 1]]
    assert _query(ddb, "SELECT COUNT(*) FROM Songs") == [[0]], "CASCADE reaches grandchildren"
    with pytest.raises(gexc.FailedPrecondition), ddb.database.batch() as batch:
        batch.delete("Singers", KeySet(keys=[[2]]))  # Concerts is NO ACTION and has a row
    assert _query(ddb, "SELECT SingerId FROM Singers") == [[2]]


def test_unique_index_rejects_duplicates(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("music")
    with pytest.raises(gexc.AlreadyExists), ddb.database.batch() as batch:
        batch.insert("Singers", ["SingerId", "Name"], [(3, "Bob")])
    assert _query(ddb, "SELECT COUNT(*) FROM Singers WHERE Name = 'Bob'") == [[1]]


def test_index_with_storing_and_interleave_in(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("music")
    with ddb.database.batch() as batch:
        batch.insert_or_update("Singers", ["SingerId", "Name"], [(5, "Cy")])
        batch.insert("Albums", ["SingerId", "AlbumId", "Title"], [(5, 9, "Zed"), (5, 8, "Alpha")])
    with ddb.database.snapshot() as snap:
        rows = list(
            snap.read(
                "Albums",
                ["SingerId", "Title", "AlbumId"],
                KeySet(ranges=[KeyRange(start_closed=[5], end_closed=[5])]),
                index="AlbumsByTitle",
            )
        )
    assert rows == [[5, "Alpha", 8], [5, "Zed", 9]], "index order (SingerId, Title), with the STORING column"


def test_null_filtered_index_leaves_out_rows_with_null_keys(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("changes")
    with ddb.database.batch() as batch:
        batch.insert(
            "DataChanges", ["Id", "Payload", "LastUpdated"], [("null-ts-1", "n", None), ("null-ts-2", "n", None)]
        )
    with ddb.database.snapshot(multi_use=True) as snap:
        total = next(iter(snap.execute_sql("SELECT COUNT(*) FROM DataChanges")))[0]
        in_index = list(
            snap.read("DataChanges", ["ShardId", "LastUpdated"], KeySet(all_=True), index="DataChangesByShardTime")
        )
        forced = list(
            snap.execute_sql(
                "SELECT Id FROM DataChanges@{FORCE_INDEX=DataChangesByShardTime} WHERE LastUpdated IS NOT NULL"
            )
        )
    assert len(in_index) == total - 2, (
        f"index has {len(in_index)} entries, table {total} rows of which 2 have NULL keys"
    )
    assert all(r[1] is not None for r in in_index)
    assert "null-ts-1" not in {r[0] for r in forced} and len(forced) == total - 2
    try:
        with ddb.database.snapshot() as snap:
            null_rows = list(
                snap.execute_sql(
                    "SELECT Id FROM DataChanges@{FORCE_INDEX=DataChangesByShardTime} WHERE LastUpdated IS NULL"
                )
            )
    except gexc.InvalidArgument:
        return  # refusing a query that needs the left-out rows is also what Spanner may do
    assert null_rows == [], f"rows with a NULL key were found through the NULL_FILTERED index: {null_rows}"


def test_drop_index_and_table_and_alter_columns(schema_dbs: Callable[[str], SpannerDb]) -> None:
    ddb = schema_dbs("all_types")
    db = ddb.database
    db.update_ddl(
        [
            "CREATE TABLE Scratch (Id INT64 NOT NULL, Keep STRING(MAX), Gone STRING(MAX)) PRIMARY KEY (Id)",
            "CREATE INDEX ScratchByKeep ON Scratch (Keep)",
        ]
    ).result(OPERATION_TIMEOUT_S)
    with db.batch() as batch:
        batch.insert("Scratch", ["Id", "Keep", "Gone"], [(1, "k", "g")])
    db.update_ddl(
        [
            "ALTER TABLE Scratch ADD COLUMN Added INT64",
            "ALTER TABLE Scratch DROP COLUMN Gone",
            "ALTER TABLE Scratch ADD COLUMN Stamp TIMESTAMP",
            "ALTER TABLE Scratch ALTER COLUMN Stamp SET OPTIONS (allow_commit_timestamp = true)",
            "DROP INDEX ScratchByKeep",
        ]
    ).result(OPERATION_TIMEOUT_S)
    with db.batch() as batch:
        batch.update("Scratch", ["Id", "Added", "Stamp"], [(1, 42, COMMIT_TIMESTAMP)])
    assert _query(
        ddb, "SELECT Id, Keep, Added, Stamp = @t FROM Scratch", {"t": batch.committed}, {"t": param_types.TIMESTAMP}
    ) == [[1, "k", 42, True]]
    with pytest.raises(gexc.InvalidArgument):
        _query(ddb, "SELECT Gone FROM Scratch")
    with pytest.raises(gexc.InvalidArgument):
        _query(ddb, "SELECT Id FROM Scratch@{FORCE_INDEX=ScratchByKeep}")
    db.update_ddl(["DROP TABLE Scratch"]).result(OPERATION_TIMEOUT_S)
    with pytest.raises(gexc.InvalidArgument):
        _query(ddb, "SELECT * FROM Scratch")
    db.reload()
    assert not [s for s in db.ddl_statements if "Scratch" in s], db.ddl_statements


def test_if_not_exists_makes_schema_creation_idempotent(make_database: DatabaseFactory) -> None:
    """Spanload creates its schema on every run; IF [NOT] EXISTS statements must be no-ops when satisfied."""
    base = [
        "CREATE TABLE IF NOT EXISTS Idem (Id INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (Id)",
        "CREATE INDEX IF NOT EXISTS IdemByV ON Idem (V)",
    ]
    db = make_database(base).database
    db.reload()
    before = list(db.ddl_statements)
    for statement in [
        *base,
        "ALTER TABLE Idem ADD COLUMN IF NOT EXISTS W INT64",
        "ALTER TABLE Idem ADD COLUMN IF NOT EXISTS W INT64",
        "DROP INDEX IF EXISTS NoSuchIndex",
    ]:
        try:
            db.update_ddl([statement]).result(OPERATION_TIMEOUT_S)
        except gexc.GoogleAPICallError as err:
            pytest.fail(f"{statement!r} failed on a schema that already satisfies it: {err.message}")
    db.reload()
    assert len(db.ddl_statements) == len(before) and "W INT64" in db.ddl_statements[0], db.ddl_statements


def test_drop_table_with_indexes_is_refused(make_database: DatabaseFactory) -> None:
    db = make_database(
        ["CREATE TABLE Dt (Id INT64 NOT NULL, V INT64) PRIMARY KEY (Id)", "CREATE INDEX DtByV ON Dt (V)"]
    )
    with pytest.raises(gexc.FailedPrecondition) as info:
        db.database.update_ddl(["DROP TABLE Dt"]).result(OPERATION_TIMEOUT_S)
    assert "DtByV" in info.value.message, info.value.message
    with db.database.batch() as batch:  # the table is still there, and deleting a missing row is no error
        batch.insert("Dt", ["Id", "V"], [(1, 1)])
        batch.delete("Dt", KeySet(keys=[[404]]))
    assert _query(db, "SELECT Id FROM Dt") == [[1]]


PRELOADED = 30_000  # rows the indexes backfill, so that each statement takes a while


def _micros(ts: Any) -> int:
    pb = ts.timestamp_pb()
    return int(pb.seconds) * 1_000_000 + int(pb.nanos) // 1000


def test_schema_change_while_writes_continue(make_database: DatabaseFactory) -> None:
    """DDL does not stop writes: Spanner applies a batch's statements one by one, each at a commit
    timestamp the operation's metadata lists (UpdateDatabaseDdlMetadata.commit_timestamps), and writes
    commit in between. Some writes' commit timestamps lie strictly between the first statement's and the
    last's, and the indexes built while rows arrived end up with every row."""
    db = make_database(["CREATE TABLE Live (Id INT64 NOT NULL, V INT64) PRIMARY KEY (Id)"]).database
    for start in range(0, PRELOADED, 5000):
        with db.batch() as batch:
            batch.insert("Live", ["Id", "V"], [(-1 - i, i % 7) for i in range(start, start + 5000)])
    stop = threading.Event()
    written: list[tuple[int, int]] = []  # (commit timestamp in µs, id)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def writer(base: int) -> None:
        i = 0
        try:
            while not stop.is_set() and i < 2000:
                with db.batch() as batch:
                    batch.insert("Live", ["Id", "V"], [(base + i, i % 7)])
                with lock:
                    written.append((_micros(batch.committed), base + i))
                i += 1
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=writer, args=(k * 1_000_000,), daemon=True) for k in range(3)]
    for t in threads:
        t.start()

    def landed(count: int) -> bool | None:
        if errors:
            raise AssertionError(f"writes failed during the schema change: {errors[:3]!r}")
        with lock:
            return True if len(written) >= count else None

    wait_for(lambda: landed(30), 60, "the writers to land 30 rows")
    with lock:
        before_ddl = len(written)
    op = db.update_ddl(
        [
            "CREATE INDEX LiveByV ON Live (V)",
            "ALTER TABLE Live ADD COLUMN W STRING(MAX)",
            "CREATE INDEX LiveByW ON Live (W)",
        ]
    )
    op.result(OPERATION_TIMEOUT_S)
    # the writes go on after the schema change, too
    wait_for(lambda: landed(before_ddl + 30), 60, "30 more rows to land after the schema change")
    stop.set()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "a writer is stuck behind the schema change"
    assert not errors, f"writes failed during the schema change: {errors[:3]!r}"
    statements_at = [_micros(ts) for ts in op.metadata.commit_timestamps]
    assert len(statements_at) == 3 and statements_at == sorted(statements_at), statements_at
    during = [w for w in written if statements_at[0] < w[0] < statements_at[-1]]
    assert during, (
        f"no write committed between the first statement ({statements_at[0]}) and the last ({statements_at[-1]}): "
        f"the last before {max(w[0] for w in written if w[0] < statements_at[0])}, "
        f"the first after {min(w[0] for w in written if w[0] > statements_at[-1])}"
    )
    with db.snapshot(multi_use=True) as snap:
        in_table = next(iter(snap.execute_sql("SELECT COUNT(*) FROM Live")))[0]
        in_index = next(iter(snap.execute_sql("SELECT COUNT(*) FROM Live@{FORCE_INDEX=LiveByV} WHERE V >= 0")))[0]
        with_w = next(iter(snap.execute_sql("SELECT COUNT(*) FROM Live WHERE W IS NULL")))[0]
    assert in_table == PRELOADED + len(written), f"{PRELOADED} + {len(written)} committed, {in_table} in the table"
    assert in_index == in_table, f"the index built during writes has {in_index} of {in_table} rows"
    assert with_w == in_table


def test_get_database_ddl_is_canonical(make_database: DatabaseFactory) -> None:
    messy = [
        "create table  Canon ( Id int64 not null , Name string(max) ,  Tags array<string(64)>)  primary key ( Id )",
        "create index CanonByName on Canon ( Name )",
    ]
    db = make_database(messy).database
    db.reload()
    assert list(db.ddl_statements) == [
        "CREATE TABLE Canon (\n  Id INT64 NOT NULL,\n  Name STRING(MAX),\n  Tags ARRAY<STRING(64)>,\n) PRIMARY KEY(Id)",
        "CREATE INDEX CanonByName ON Canon(Name)",
    ]


@pytest.mark.parametrize("schema", sorted(SCHEMAS))
def test_get_database_ddl_round_trips(
    schema_dbs: Callable[[str], SpannerDb], make_database: DatabaseFactory, schema: str
) -> None:
    """Canonical statements recreate the same schema, and print the same again."""
    ddb = schema_dbs(schema)
    ddb.database.reload()
    statements = list(ddb.database.ddl_statements)
    assert len(statements) == len(SCHEMAS[schema]), statements
    marks = {
        "music": "INTERLEAVE IN PARENT Singers ON DELETE CASCADE",
        "changes": "CREATE NULL_FILTERED INDEX DataChangesByShardTime",
        "defaults": "allow_commit_timestamp = true",
        "generated": "AS (MOD(A, 7)) STORED",
        "all_types": "ARRAY<FLOAT32>",
    }
    assert any(marks[schema] in s for s in statements), statements
    copy = make_database(statements).database
    copy.reload()
    assert list(copy.ddl_statements) == statements
