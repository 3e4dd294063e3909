"""Issue 17, "ALTER TABLE ... ALTER COLUMN where Spanner allows it": column defaults, and reads through an index.

Expected values come from Spanner's documentation ("GoogleSQL data definition language": ALTER COLUMN ... SET DEFAULT
and DROP DEFAULT; "Information schema for GoogleSQL-dialect databases": COLUMNS.COLUMN_DEFAULT; "Make schema updates":
"Set, change or drop the default value of a column"), never from the server's own output.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import KeySet

from .conftest import DatabaseFactory, SpannerDb
from .test_fidelity_ddl import _ddl, _ddl_error, _msg, _query

DDL = [
    """CREATE TABLE Tickets (
        Id INT64 NOT NULL,
        Status STRING(20) DEFAULT ('open'),
        Priority INT64,
        Note STRING(MAX)
    ) PRIMARY KEY (Id)""",
    "CREATE INDEX TicketsByPriority ON Tickets(Priority) STORING (Status)",
]


@pytest.fixture(scope="module")
def adb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


def _column_default(db: SpannerDb, column: str) -> list[list[Any]]:
    return _query(
        db,
        "SELECT COLUMN_DEFAULT FROM INFORMATION_SCHEMA.COLUMNS "
        f"WHERE TABLE_NAME = 'Tickets' AND COLUMN_NAME = '{column}'",
    )


def _tickets_ddl(db: SpannerDb) -> str:
    db.database.reload()
    return next(s for s in db.database.ddl_statements if s.startswith("CREATE TABLE Tickets"))


# ---- SET DEFAULT / DROP DEFAULT --------------------------------------------------------------------------------------


def test_set_default_applies_to_later_inserts_and_keeps_existing_rows(adb: SpannerDb) -> None:
    with adb.database.batch() as batch:
        batch.insert("Tickets", ["Id"], [(1,)])
        batch.insert("Tickets", ["Id", "Priority"], [(2, 7)])
    assert _query(adb, "SELECT Id, Status, Priority FROM Tickets WHERE Id IN (1, 2) ORDER BY Id") == [
        [1, "open", None],
        [2, "open", 7],
    ]
    # A new default for a column that has one, and a first default for one that had none.
    _ddl(
        adb,
        [
            "ALTER TABLE Tickets ALTER COLUMN Status SET DEFAULT ('new')",
            "ALTER TABLE Tickets ALTER COLUMN Priority SET DEFAULT (3)",
        ],
    )
    with adb.database.batch() as batch:
        batch.insert("Tickets", ["Id"], [(3,)])
        batch.insert_or_update("Tickets", ["Id", "Note"], [(4, "upserted")])
    adb.database.run_in_transaction(lambda tx: tx.execute_update("INSERT INTO Tickets (Id, Note) VALUES (5, 'dml')"))
    assert _query(adb, "SELECT Id, Status, Priority FROM Tickets WHERE Id <= 5 ORDER BY Id") == [
        [1, "open", None],  # existing rows keep their values
        [2, "open", 7],
        [3, "new", 3],
        [4, "new", 3],
        [5, "new", 3],
    ]
    # An update of an existing row that leaves the column out does not apply the default.
    with adb.database.batch() as batch:
        batch.insert_or_update("Tickets", ["Id", "Note"], [(1, "touched")])
    assert _query(adb, "SELECT Status, Priority, Note FROM Tickets WHERE Id = 1") == [["open", None, "touched"]]
    # The index on Priority (STORING Status) holds the defaulted values.
    assert _query(
        adb, "SELECT Id, Status FROM Tickets@{FORCE_INDEX=TicketsByPriority} WHERE Priority = 3 ORDER BY Id"
    ) == [[3, "new"], [4, "new"], [5, "new"]]


def test_default_shows_in_information_schema_and_ddl(adb: SpannerDb) -> None:
    _ddl(adb, ["ALTER TABLE Tickets ALTER COLUMN Priority SET DEFAULT (5)"])
    # "COLUMN_DEFAULT: A string representation of the SQL expression of the default value of the column.
    # NULL if the column has no default value."
    assert _column_default(adb, "Priority") == [["5"]]
    assert "  Priority INT64 DEFAULT (5),\n" in _tickets_ddl(adb)
    _ddl(adb, ["ALTER TABLE Tickets ALTER COLUMN Priority DROP DEFAULT"])
    assert _column_default(adb, "Priority") == [[None]]
    assert "  Priority INT64,\n" in _tickets_ddl(adb)


def test_drop_default_leaves_later_inserts_null_and_keeps_existing_rows(adb: SpannerDb) -> None:
    _ddl(adb, ["ALTER TABLE Tickets ALTER COLUMN Status SET DEFAULT ('queued')"])
    with adb.database.batch() as batch:
        batch.insert("Tickets", ["Id"], [(20,)])
    _ddl(adb, ["ALTER TABLE Tickets ALTER COLUMN Status DROP DEFAULT"])
    with adb.database.batch() as batch:
        batch.insert("Tickets", ["Id"], [(21,)])
    assert _query(adb, "SELECT Id, Status FROM Tickets WHERE Id IN (20, 21) ORDER BY Id") == [
        [20, "queued"],
        [21, None],
    ]
    assert _column_default(adb, "Status") == [[None]]


def test_set_default_on_an_added_column_and_after_a_dropped_one(adb: SpannerDb) -> None:
    # Columns added and dropped after the table was created keep their values across a default change.
    _ddl(
        adb,
        [
            "ALTER TABLE Tickets ADD COLUMN Extra STRING(MAX)",
            "ALTER TABLE Tickets ADD COLUMN Gone INT64",
        ],
    )
    with adb.database.batch() as batch:
        batch.insert_or_update("Tickets", ["Id", "Status", "Extra", "Gone"], [(60, "a", "e60", 1)])
    _ddl(
        adb,
        [
            "ALTER TABLE Tickets DROP COLUMN Gone",
            "ALTER TABLE Tickets ALTER COLUMN Extra SET DEFAULT ('x')",
            "ALTER TABLE Tickets ALTER COLUMN Status SET DEFAULT ('s')",
        ],
    )
    with adb.database.batch() as batch:
        batch.insert("Tickets", ["Id"], [(61,)])
    assert _query(adb, "SELECT Id, Status, Extra FROM Tickets WHERE Id IN (60, 61) ORDER BY Id") == [
        [60, "a", "e60"],
        [61, "s", "x"],
    ]


def test_alter_column_with_a_whole_definition_sets_or_drops_the_default(adb: SpannerDb) -> None:
    # "ALTER COLUMN c type [NOT NULL] [DEFAULT (expr)]" gives the column's whole definition: its DEFAULT replaces the
    # column's, and one left out is dropped.
    _ddl(adb, ["ALTER TABLE Tickets ALTER COLUMN Status STRING(20) DEFAULT ('full')"])
    with adb.database.batch() as batch:
        batch.insert("Tickets", ["Id"], [(70,)])
    _ddl(adb, ["ALTER TABLE Tickets ALTER COLUMN Status STRING(30)"])
    with adb.database.batch() as batch:
        batch.insert("Tickets", ["Id"], [(71,)])
    assert _query(adb, "SELECT Id, Status FROM Tickets WHERE Id IN (70, 71) ORDER BY Id") == [[70, "full"], [71, None]]
    assert _column_default(adb, "Status") == [[None]]
    err = _ddl_error(adb, ["ALTER TABLE Tickets ALTER COLUMN Status STRING(30) DEFAULT (1)"])
    assert isinstance(err, gexc.InvalidArgument), err
    assert "Error parsing the default value of column `Tickets`.`Status`" in err.message


def test_set_default_on_a_missing_column_is_not_found(adb: SpannerDb) -> None:
    err = _ddl_error(adb, ["ALTER TABLE Tickets ALTER COLUMN Nope SET DEFAULT (1)"])
    assert isinstance(err, gexc.NotFound), err
    assert "Column not found in table Tickets: Nope" in err.message


def test_set_default_of_another_type_is_refused(adb: SpannerDb) -> None:
    # The DEFAULT expression must have the column's type (or one that coerces to it).
    before = _column_default(adb, "Priority")
    err = _ddl_error(adb, ["ALTER TABLE Tickets ALTER COLUMN Priority SET DEFAULT ('high')"])
    assert isinstance(err, gexc.InvalidArgument), err
    assert "Error parsing the default value of column `Tickets`.`Priority`" in err.message
    assert _column_default(adb, "Priority") == before
    err = _ddl_error(adb, ["ALTER TABLE Tickets ALTER COLUMN Status SET DEFAULT (NoSuchFunction(1))"])
    assert isinstance(err, gexc.InvalidArgument), err
    assert "Error parsing the default value of column `Tickets`.`Status`" in err.message


def test_default_survives_a_schema_reload(adb: SpannerDb) -> None:
    # A later, unrelated schema change (replayed from the DDL history) keeps the changed default.
    _ddl(adb, ["ALTER TABLE Tickets ALTER COLUMN Note SET DEFAULT ('kept')"])
    _ddl(adb, ["CREATE TABLE Unrelated (Id INT64 NOT NULL) PRIMARY KEY (Id)"])
    with adb.database.batch() as batch:
        batch.insert("Tickets", ["Id"], [(40,)])
    assert _query(adb, "SELECT Note FROM Tickets WHERE Id = 40") == [["kept"]]


# ---- read() through an index, asking for a column the index does not have -------------------------------------------
# Cloud Spanner answers UNIMPLEMENTED "Reading non-indexed columns using an index is not supported. Consider adding
# <column> to the index using a STORING clause." (the official emulator answers NOT_FOUND with its own words instead).


@pytest.mark.parametrize("multi_use", [False, True], ids=["single-use", "multi-use"])
def test_read_through_an_index_of_a_column_it_does_not_cover(adb: SpannerDb, multi_use: bool) -> None:
    with adb.database.batch() as batch:
        batch.insert_or_update("Tickets", ["Id", "Priority", "Status", "Note"], [(50, 9, "s", "n")])
    with adb.database.snapshot(multi_use=multi_use) as snap:
        # Key, indexed and STORING columns are read through the index.
        rows = [
            list(r)
            for r in snap.read("Tickets", ["Id", "Priority", "Status"], KeySet(keys=[[9]]), index="TicketsByPriority")
        ]
    assert rows == [[50, 9, "s"]]
    with pytest.raises(gexc.MethodNotImplemented) as info, adb.database.snapshot(multi_use=multi_use) as snap:
        list(snap.read("Tickets", ["Id", "Note"], KeySet(all_=True), index="TicketsByPriority"))
    assert _msg(info.value) == (
        "Reading non-indexed columns using an index is not supported. "
        "Consider adding Note to the index using a STORING clause."
    )


# ---- STRING <-> BYTES ------------------------------------------------------------------------------------------------
# "Make schema updates": Spanner allows changing a STRING column to BYTES and a BYTES column to STRING (ARRAY<STRING>
# and ARRAY<BYTES> likewise); it validates the existing data: BYTES values must be valid UTF-8 to become STRING, and
# every value must fit the new length. Other type changes are refused.

RETYPE_DDL = [
    """CREATE TABLE Docs (
        Id INT64 NOT NULL, Body STRING(MAX), Raw BYTES(MAX), Tags ARRAY<STRING(MAX)>, Blobs ARRAY<BYTES(MAX)>
    ) PRIMARY KEY (Id)""",
    "CREATE INDEX DocsByBody ON Docs(Body)",
    "CREATE INDEX DocsByRaw ON Docs(Raw) STORING (Body)",
    "CREATE TABLE Tags (Name STRING(MAX) NOT NULL, Hits INT64) PRIMARY KEY (Name)",
    "CREATE INDEX TagsByHits ON Tags(Hits)",
    "CREATE TABLE Folders (Path STRING(MAX) NOT NULL, Owner STRING(MAX)) PRIMARY KEY (Path)",
    """CREATE TABLE Files (Path STRING(MAX) NOT NULL, Name STRING(MAX) NOT NULL, Owner STRING(MAX),
        CONSTRAINT FK_FileOwner FOREIGN KEY (Owner) REFERENCES Tags (Name))
        PRIMARY KEY (Path, Name), INTERLEAVE IN PARENT Folders ON DELETE CASCADE""",
]


def _b64(b: bytes) -> bytes:
    # The Python client hands BYTES over, both ways, as their base64 text.
    return base64.b64encode(b)


@pytest.fixture(scope="module")
def rdb(make_database: DatabaseFactory) -> SpannerDb:
    db = make_database(RETYPE_DDL)
    with db.database.batch() as batch:
        batch.insert(
            "Docs",
            ["Id", "Body", "Raw", "Tags", "Blobs"],
            [
                (1, "héllo", _b64("café".encode()), ["a", None, "ü"], [_b64(b"x"), None]),
                (2, "world", _b64(b"plain"), None, []),
                (3, None, None, [], None),
            ],
        )
    return db


def _types(db: SpannerDb) -> list[list[Any]]:
    return _query(
        db,
        "SELECT COLUMN_NAME, SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'Docs' "
        "AND COLUMN_NAME IN ('Body', 'Raw', 'Tags', 'Blobs') ORDER BY COLUMN_NAME",
    )


def test_string_and_bytes_columns_change_type_with_their_values(rdb: SpannerDb) -> None:
    _ddl(
        rdb,
        [
            "ALTER TABLE Docs ALTER COLUMN Body BYTES(MAX)",
            "ALTER TABLE Docs ALTER COLUMN Raw STRING(MAX)",
            "ALTER TABLE Docs ALTER COLUMN Tags ARRAY<BYTES(MAX)>",
            "ALTER TABLE Docs ALTER COLUMN Blobs ARRAY<STRING(MAX)>",
        ],
    )
    assert _types(rdb) == [
        ["Blobs", "ARRAY<STRING(MAX)>"],
        ["Body", "BYTES(MAX)"],
        ["Raw", "STRING(MAX)"],
        ["Tags", "ARRAY<BYTES(MAX)>"],
    ]
    assert _query(rdb, "SELECT Id, Body, Raw, Tags, Blobs FROM Docs ORDER BY Id") == [
        [1, _b64("héllo".encode()), "café", [_b64(b"a"), None, _b64("ü".encode())], ["x", None]],
        [2, _b64(b"world"), "plain", None, []],
        [3, None, None, [], None],
    ]
    # The indexes on the changed columns keep working: in queries, in reads, and for new rows.
    with rdb.database.batch() as batch:
        batch.insert("Docs", ["Id", "Body", "Raw"], [(4, _b64(b"new"), "fresh")])
    assert _query(
        rdb, "SELECT Id FROM Docs@{FORCE_INDEX=DocsByBody} WHERE Body = b'world' OR Body = b'new' ORDER BY Id"
    ) == [[2], [4]]
    assert _query(rdb, "SELECT Id, Body FROM Docs@{FORCE_INDEX=DocsByRaw} WHERE Raw = 'café'") == [
        [1, _b64("héllo".encode())]
    ]
    with rdb.database.snapshot() as snap:
        rows = [list(r) for r in snap.read("Docs", ["Id", "Raw"], KeySet(keys=[["plain"]]), index="DocsByRaw")]
    assert rows == [[2, "plain"]]
    # And back again.
    _ddl(rdb, ["ALTER TABLE Docs ALTER COLUMN Body STRING(MAX)", "ALTER TABLE Docs ALTER COLUMN Raw BYTES(MAX)"])
    assert _query(rdb, "SELECT Id, Body, Raw FROM Docs WHERE Id IN (1, 4) ORDER BY Id") == [
        [1, "héllo", _b64("café".encode())],
        [4, "new", _b64(b"fresh")],
    ]
    assert _query(rdb, "SELECT Id FROM Docs@{FORCE_INDEX=DocsByBody} WHERE Body >= 'n' ORDER BY Body") == [[4], [2]]


def test_bytes_that_are_not_utf8_cannot_become_string(rdb: SpannerDb) -> None:
    with rdb.database.batch() as batch:
        batch.insert("Docs", ["Id", "Raw", "Blobs"], [(10, _b64(b"\xff\xfe"), None), (11, None, ["ok", None])])
    before = _types(rdb)
    err = _ddl_error(rdb, ["ALTER TABLE Docs ALTER COLUMN Raw STRING(MAX)"])
    assert isinstance(err, gexc.FailedPrecondition), err
    assert "Alteration of column Raw is not allowed because it has an invalid UTF-8 character at key: [10]" in (
        err.message
    )
    assert _types(rdb) == before
    assert _query(rdb, "SELECT Raw FROM Docs WHERE Id = 10") == [[_b64(b"\xff\xfe")]]
    with rdb.database.batch() as batch:
        batch.delete("Docs", KeySet(keys=[[10], [11]]))


def test_a_changed_type_must_hold_the_values(rdb: SpannerDb) -> None:
    # "é" is one character of STRING but two bytes of BYTES.
    with rdb.database.batch() as batch:
        batch.insert("Docs", ["Id", "Body"], [(20, "é")])
    err = _ddl_error(rdb, ["ALTER TABLE Docs ALTER COLUMN Body BYTES(1)"])
    assert isinstance(err, gexc.FailedPrecondition), err
    assert "Reducing the length of column Body to 1 is not allowed" in err.message
    assert _query(rdb, "SELECT Body FROM Docs WHERE Id = 20") == [["é"]]
    with rdb.database.batch() as batch:
        batch.delete("Docs", KeySet(keys=[[20]]))


@pytest.mark.parametrize(
    "statement, message",
    [
        ("ALTER TABLE Docs ALTER COLUMN Body ARRAY<BYTES(MAX)>", "Cannot change type of column `Body`"),
        ("ALTER TABLE Docs ALTER COLUMN Body INT64", "Cannot change type of column `Body`"),
        ("ALTER TABLE Docs ALTER COLUMN Tags BYTES(MAX)", "Cannot change type of column `Tags`"),
    ],
    ids=["scalar to array", "string to int64", "array to scalar"],
)
def test_other_type_changes_are_refused(rdb: SpannerDb, statement: str, message: str) -> None:
    err = _ddl_error(rdb, [statement])
    assert isinstance(err, gexc.InvalidArgument), err
    assert message in err.message


def test_a_key_column_changes_type_with_its_rows(rdb: SpannerDb) -> None:
    # Tags.Name is referenced by a foreign key: refused while FK_FileOwner exists, then changed once it is dropped.
    with rdb.database.batch() as batch:
        batch.insert("Tags", ["Name", "Hits"], [("alpha", 3), ("beta", 1), ("gämma", 2)])
    err = _ddl_error(rdb, ["ALTER TABLE Tags ALTER COLUMN Name BYTES(MAX) NOT NULL"])
    assert isinstance(err, gexc.FailedPrecondition), err
    assert "Cannot change the type for column `Name` of table `Tags`. It is used by one or more foreign keys: " in (
        err.message
    )
    _ddl(
        rdb,
        ["ALTER TABLE Files DROP CONSTRAINT FK_FileOwner", "ALTER TABLE Tags ALTER COLUMN Name BYTES(MAX) NOT NULL"],
    )
    with rdb.database.snapshot(multi_use=True) as snap:
        by_key = [list(r) for r in snap.read("Tags", ["Name", "Hits"], KeySet(keys=[[_b64(b"beta")]]))]
        all_rows = [list(r) for r in snap.read("Tags", ["Name", "Hits"], KeySet(all_=True))]
        by_index = [list(r) for r in snap.read("Tags", ["Name", "Hits"], KeySet(all_=True), index="TagsByHits")]
    assert by_key == [[_b64(b"beta"), 1]]
    # BYTES order the same way as the UTF-8 of the strings they were.
    assert all_rows == [[_b64(b"alpha"), 3], [_b64(b"beta"), 1], [_b64("gämma".encode()), 2]]
    assert by_index == [[_b64(b"beta"), 1], [_b64("gämma".encode()), 2], [_b64(b"alpha"), 3]]


@pytest.mark.parametrize(
    "statement, message",
    [
        ("ALTER TABLE Folders ALTER COLUMN Path BYTES(MAX) NOT NULL", "Requested change to key column Folders.Path"),
        ("ALTER TABLE Files ALTER COLUMN Path BYTES(MAX) NOT NULL", "Cannot alter parent key column Files.Path."),
    ],
    ids=["parent of an interleaved table", "inherited by an interleaved table"],
)
def test_an_interleaved_key_column_keeps_its_type(rdb: SpannerDb, statement: str, message: str) -> None:
    err = _ddl_error(rdb, [statement])
    assert isinstance(err, gexc.InvalidArgument), err
    assert message in err.message


def test_a_read_before_the_change_sees_the_values_in_the_new_type(rdb: SpannerDb) -> None:
    # A stale read at a timestamp before the change returns the row versions of then, in the column's type of now.
    with rdb.database.batch() as batch:
        batch.insert_or_update("Docs", ["Id", "Body"], [(30, "first")])
    with rdb.database.batch() as batch:
        batch.update("Docs", ["Id", "Body"], [(30, "second")])
    first_ts = batch.committed
    with rdb.database.batch() as batch:
        batch.update("Docs", ["Id", "Body"], [(30, "third")])
    _ddl(rdb, ["ALTER TABLE Docs ALTER COLUMN Body BYTES(MAX)"])
    with rdb.database.snapshot(read_timestamp=first_ts) as snap:
        then = [list(r) for r in snap.execute_sql("SELECT Id, Body FROM Docs WHERE Body = b'second'")]
    assert then == [[30, _b64(b"second")]]
    assert _query(rdb, "SELECT Body FROM Docs WHERE Id = 30") == [[_b64(b"third")]]
    _ddl(rdb, ["ALTER TABLE Docs ALTER COLUMN Body STRING(MAX)"])
