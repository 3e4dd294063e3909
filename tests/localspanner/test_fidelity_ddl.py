"""Issue 17, "Schema (DDL)": views, NOT_FOUND for missing tables, error positions, constraints, ALTER, operation ids.

Expected values come from Spanner's documentation (each case names the page: "Create and manage views", "About views",
"Information schema for GoogleSQL-dialect databases", "GoogleSQL data definition language", "Spanner errors"),
never from the server's own output. Messages follow the official emulator's wording where the documentation gives none.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import KeySet, param_types
from google.cloud.spanner_v1.instance import Instance

from .conftest import OPERATION_TIMEOUT_S, DatabaseFactory, SpannerDb, unique
from .rpc_recorder import instrument

DDL = [
    """CREATE TABLE Singers (SingerId INT64 NOT NULL, FirstName STRING(100), LastName STRING(100))
        PRIMARY KEY (SingerId)""",
    """CREATE TABLE Albums (SingerId INT64 NOT NULL, AlbumId INT64 NOT NULL, Title STRING(MAX))
        PRIMARY KEY (SingerId, AlbumId), INTERLEAVE IN PARENT Singers ON DELETE CASCADE""",
    # "Create and manage views": the query must name every column and qualify every column with its table.
    """CREATE VIEW SingerNames SQL SECURITY INVOKER AS
        SELECT Singers.SingerId AS SingerId, Singers.FirstName || ' ' || Singers.LastName AS Name
        FROM Singers""",
    # A view over a view.
    "CREATE VIEW LateSingers SQL SECURITY INVOKER AS SELECT SingerNames.Name AS Name FROM SingerNames "
    "WHERE SingerNames.SingerId >= 2",
]
SINGERS = [(1, "Marc", "Richards"), (2, "Catalina", "Smith"), (3, "Alice", "Trentor")]
ALBUMS = [(1, 1, "Total Junk"), (2, 1, "Green"), (2, 2, "Go, Go, Go")]


@pytest.fixture(scope="module")
def ddb(make_database: DatabaseFactory) -> SpannerDb:
    """A database whose creation DDL has views (before issue 17 such a database could not be created)."""
    db = make_database(DDL)
    with db.database.batch() as batch:
        batch.insert("Singers", ["SingerId", "FirstName", "LastName"], SINGERS)
        batch.insert("Albums", ["SingerId", "AlbumId", "Title"], ALBUMS)
    return db


def _query(db: SpannerDb, sql: str, params: dict[str, Any] | None = None, types: dict[str, Any] | None = None) -> Any:
    with db.database.snapshot() as snap:
        return [list(r) for r in snap.execute_sql(sql, params=params, param_types=types)]


def _msg(err: gexc.GoogleAPICallError) -> str:
    """The server's message, without the request id the Python client appends."""
    return str(err.message).split(", request_id = ")[0]


def _with_caret(sql: str, message: str) -> str:
    """``message`` (ending in "[at line:column]") as Spanner's analyzer words it: the line of ``sql`` and a caret under
    the column follow (ZetaSQL's ERROR_MESSAGE_MULTI_LINE_WITH_CARET, which the official emulator sets in
    backend/query/analyzer_options.cc; lines here are shorter than its 80-character cut)."""
    found = re.search(r"\[at (\d+):(\d+)\]$", message)
    assert found, message
    line, column = int(found[1]), int(found[2])
    return f"{message}\n{sql.splitlines()[line - 1]}\n{' ' * (column - 1)}^"


def _ddl(db: SpannerDb, statements: list[str]) -> None:
    db.database.update_ddl(statements).result(OPERATION_TIMEOUT_S)


def _ddl_error(db: SpannerDb, statements: list[str]) -> gexc.GoogleAPICallError:
    """The error of a failing UpdateDatabaseDdl (Spanner reports it in the operation)."""
    with pytest.raises(gexc.GoogleAPICallError) as info:
        db.database.update_ddl(statements).result(OPERATION_TIMEOUT_S)
    return info.value


def _schema(db: SpannerDb) -> list[str]:
    db.database.reload()
    return list(db.database.ddl_statements)


# ---- views ---------------------------------------------------------------------------------------------------------


def test_query_selects_from_a_view(ddb: SpannerDb) -> None:
    assert _query(ddb, "SELECT SingerId, Name FROM SingerNames ORDER BY SingerId") == [
        [1, "Marc Richards"],
        [2, "Catalina Smith"],
        [3, "Alice Trentor"],
    ]


def test_view_takes_where_alias_join_and_parameters(ddb: SpannerDb) -> None:
    rows = _query(
        ddb,
        "SELECT v.Name, a.Title FROM SingerNames AS v JOIN Albums AS a ON a.SingerId = v.SingerId "
        "WHERE v.SingerId = @id ORDER BY a.AlbumId",
        {"id": 2},
        {"id": param_types.INT64},
    )
    assert rows == [["Catalina Smith", "Green"], ["Catalina Smith", "Go, Go, Go"]]
    assert _query(ddb, "SELECT COUNT(*) FROM SingerNames WHERE Name LIKE '%i%'") == [[3]]


def test_view_over_a_view(ddb: SpannerDb) -> None:
    assert _query(ddb, "SELECT Name FROM LateSingers ORDER BY Name") == [["Alice Trentor"], ["Catalina Smith"]]


def test_view_reads_current_rows_in_a_read_write_transaction(ddb: SpannerDb) -> None:
    session_rows: list[list[Any]] = []

    def run(tx: Any) -> None:
        # DML writes, unlike buffered mutations, are visible to the transaction's later reads.
        tx.execute_update("INSERT INTO Singers (SingerId, FirstName, LastName) VALUES (9, 'Nine', 'Inside')")
        session_rows.extend(list(r) for r in tx.execute_sql("SELECT Name FROM SingerNames WHERE SingerId = 9"))
        raise _Rollback

    with pytest.raises(_Rollback):
        ddb.database.run_in_transaction(run)
    assert session_rows == [["Nine Inside"]], "a view sees the transaction's own writes, as its query would"
    assert _query(ddb, "SELECT COUNT(*) FROM SingerNames WHERE SingerId = 9") == [[0]]


class _Rollback(Exception):
    """Raised inside run_in_transaction to roll the transaction back."""


def test_views_in_information_schema(ddb: SpannerDb) -> None:
    # "Information schema": VIEWS has TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION and SECURITY_TYPE;
    # TABLES lists views with TABLE_TYPE 'VIEW'; COLUMNS lists a view's columns.
    views = _query(
        ddb,
        "SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, SECURITY_TYPE, VIEW_DEFINITION FROM INFORMATION_SCHEMA.VIEWS "
        "ORDER BY TABLE_NAME",
    )
    assert [v[:4] for v in views] == [["", "", "LateSingers", "INVOKER"], ["", "", "SingerNames", "INVOKER"]]
    assert views[0][4] == "SELECT SingerNames.Name AS Name FROM SingerNames WHERE SingerNames.SingerId >= 2"
    assert _query(
        ddb, "SELECT TABLE_NAME, TABLE_TYPE FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = '' ORDER BY TABLE_NAME"
    ) == [["Albums", "BASE TABLE"], ["LateSingers", "VIEW"], ["SingerNames", "VIEW"], ["Singers", "BASE TABLE"]]
    assert _query(
        ddb,
        "SELECT COLUMN_NAME, ORDINAL_POSITION, SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS "
        "WHERE TABLE_NAME = 'SingerNames' ORDER BY ORDINAL_POSITION",
    ) == [["SingerId", 1, "INT64"], ["Name", 2, "STRING(MAX)"]]


def test_views_in_get_database_ddl(ddb: SpannerDb) -> None:
    views = [s for s in _schema(ddb) if s.startswith("CREATE VIEW")]
    assert [v.split(" AS ")[0] for v in views] == [
        "CREATE VIEW SingerNames SQL SECURITY INVOKER",
        "CREATE VIEW LateSingers SQL SECURITY INVOKER",
    ]


def test_create_or_replace_and_drop_view(ddb: SpannerDb) -> None:
    name = "V" + unique("r").replace("-", "_")
    _ddl(ddb, [f"CREATE VIEW {name} SQL SECURITY INVOKER AS SELECT Singers.FirstName AS N FROM Singers"])
    assert _query(ddb, f"SELECT N FROM {name} ORDER BY N") == [["Alice"], ["Catalina"], ["Marc"]]
    # "CREATE OR REPLACE VIEW ... If a view named view_name already exists, its definition is replaced."
    _ddl(ddb, [f"CREATE OR REPLACE VIEW {name} SQL SECURITY INVOKER AS SELECT Singers.LastName AS N FROM Singers"])
    assert _query(ddb, f"SELECT N FROM {name} ORDER BY N") == [["Richards"], ["Smith"], ["Trentor"]]
    # "CREATE VIEW ... If a view named view_name already exists, the CREATE VIEW statement fails."
    err = _ddl_error(ddb, [f"CREATE VIEW {name} SQL SECURITY INVOKER AS SELECT 1 AS N"])
    assert isinstance(err, gexc.FailedPrecondition), err
    assert f"Duplicate name in schema: {name}." in err.message
    _ddl(ddb, [f"DROP VIEW {name}"])
    with pytest.raises(gexc.InvalidArgument) as info:
        _query(ddb, f"SELECT N FROM {name}")
    assert _msg(info.value) == _with_caret(f"SELECT N FROM {name}", f"Table not found: {name} [at 1:15]")
    err = _ddl_error(ddb, [f"DROP VIEW {name}"])
    assert isinstance(err, gexc.NotFound), err
    assert f"View not found: {name}" in err.message


def test_view_without_sql_security_is_rejected(ddb: SpannerDb) -> None:
    # "You must specify the SQL SECURITY as either INVOKER or DEFINER".
    before = _schema(ddb)
    err = _ddl_error(ddb, ["CREATE VIEW NoSecurity AS SELECT Singers.SingerId AS Id FROM Singers"])
    assert isinstance(err, gexc.InvalidArgument), err
    assert "View `NoSecurity` is missing the SQL SECURITY clause." in err.message
    assert _schema(ddb) == before


@pytest.mark.parametrize(
    "query, code, message",
    [
        ("SELECT * FROM Nope", gexc.InvalidArgument, "Table not found: Nope"),
        ("SELECT Singers.Nope AS X FROM Singers", gexc.InvalidArgument, "Nope"),
        ("SELECT 1", gexc.InvalidArgument, "CREATE VIEW columns must be named, but column 1 has no name"),
        ("SELECT 1 AS A, 2 AS a", gexc.InvalidArgument, "CREATE VIEW has columns with duplicate name a"),
        # "Spanner checks the query you specify using strict name resolution": columns need their table's name.
        (
            "SELECT SingerId FROM Singers",
            gexc.InvalidArgument,
            "Alias SingerId cannot be used without a qualifier in strict name resolution mode",
        ),
        ("SELECT * FROM Singers", gexc.InvalidArgument, "SELECT * is not allowed in strict name resolution mode"),
    ],
    ids=["missing table", "missing column", "unnamed column", "duplicate column", "unqualified column", "star"],
)
def test_view_with_a_bad_query_is_rejected(ddb: SpannerDb, query: str, code: type, message: str) -> None:
    err = _ddl_error(ddb, [f"CREATE VIEW BadView SQL SECURITY INVOKER AS {query}"])
    assert isinstance(err, code), err
    assert "Error analyzing the definition of view `BadView`" in err.message
    assert message in err.message


def test_what_a_view_depends_on_cannot_be_dropped(ddb: SpannerDb) -> None:
    # "About views": a view's dependencies cannot be dropped while the view exists.
    name = "T" + unique("d").replace("-", "_")
    _ddl(
        ddb,
        [
            f"CREATE TABLE {name} (Id INT64 NOT NULL, A INT64, B INT64) PRIMARY KEY (Id)",
            f"CREATE VIEW {name}_V SQL SECURITY INVOKER AS SELECT {name}.A AS A FROM {name}",
            f"CREATE VIEW {name}_W SQL SECURITY INVOKER AS SELECT {name}_V.A AS A FROM {name}_V",
        ],
    )
    cases = [
        (f"DROP TABLE {name}", f"Cannot drop TABLE `{name}` on which there are dependent views: {name}_V."),
        (f"ALTER TABLE {name} DROP COLUMN A", f"Cannot drop column `A` on which there are dependent views: {name}_V."),
        (f"DROP VIEW {name}_V", f"Cannot drop VIEW `{name}_V` on which there are dependent views: {name}_W."),
    ]
    for statement, message in cases:
        err = _ddl_error(ddb, [statement])
        assert isinstance(err, gexc.FailedPrecondition), (statement, err)
        assert message in err.message, (statement, err.message)
    # A column no view reads can go; then the views, then the table.
    _ddl(ddb, [f"ALTER TABLE {name} DROP COLUMN B", f"DROP VIEW {name}_W", f"DROP VIEW {name}_V", f"DROP TABLE {name}"])
    assert not [s for s in _schema(ddb) if name in s]


def test_replacing_a_view_with_a_recursive_definition_is_refused(ddb: SpannerDb) -> None:
    a, b = "A" + unique("c").replace("-", "_"), "B" + unique("c").replace("-", "_")
    _ddl(
        ddb,
        [
            f"CREATE VIEW {a} SQL SECURITY INVOKER AS SELECT 1 AS K",
            f"CREATE VIEW {b} SQL SECURITY INVOKER AS SELECT {a}.K AS K FROM {a}",
        ],
    )
    err = _ddl_error(ddb, [f"CREATE OR REPLACE VIEW {a} SQL SECURITY INVOKER AS SELECT {b}.K AS K FROM {b}"])
    assert isinstance(err, gexc.FailedPrecondition), err
    assert f"Cannot replace VIEW `{a}` because new definition is recursive." in err.message
    _ddl(ddb, [f"DROP VIEW {b}", f"DROP VIEW {a}"])


# ---- missing tables and columns --------------------------------------------------------------------------------------
# Read and mutations name a table by its name: an unknown one is NOT_FOUND "Table not found: X" (the official emulator's
# TableNotFound), an unknown column NOT_FOUND "Column not found in table T: C". SQL resolves names while it is analysed:
# an unknown table there is INVALID_ARGUMENT with the position of the name ("Table not found: X [at 1:15]").


def _read(db: SpannerDb, table: str, columns: list[str], multi_use: bool = False) -> list[list[Any]]:
    with db.database.snapshot(multi_use=multi_use) as snap:
        return [list(r) for r in snap.read(table, columns, KeySet(all_=True))]


@pytest.mark.parametrize("multi_use", [False, True], ids=["single-use", "multi-use"])
def test_read_of_a_missing_table_is_not_found(ddb: SpannerDb, multi_use: bool) -> None:
    with pytest.raises(gexc.NotFound) as info:
        _read(ddb, "NoSuchTable", ["Id"], multi_use)
    assert _msg(info.value) == "Table not found: NoSuchTable"
    with pytest.raises(gexc.NotFound) as info:
        _read(ddb, "Singers", ["SingerId", "NoSuchColumn"], multi_use)
    assert _msg(info.value) == "Column not found in table Singers: NoSuchColumn"


def test_read_of_a_missing_table_in_a_read_write_transaction_is_not_found(ddb: SpannerDb) -> None:
    def work(tx: Any) -> None:
        list(tx.read("NoSuchTable", ["Id"], KeySet(all_=True)))

    with pytest.raises(gexc.NotFound) as info:
        ddb.database.run_in_transaction(work)
    assert _msg(info.value) == "Table not found: NoSuchTable"


def test_read_of_a_view_by_name_is_not_found(ddb: SpannerDb) -> None:
    # Read reads tables and indexes; a view is neither ("Read ... table: Required. The name of the table").
    with pytest.raises(gexc.NotFound) as info:
        _read(ddb, "SingerNames", ["Name"])
    assert _msg(info.value) == "Table not found: SingerNames"


@pytest.mark.parametrize("op", ["insert", "update", "insert_or_update", "replace", "delete"])
def test_mutation_on_a_missing_table_is_not_found(ddb: SpannerDb, op: str) -> None:
    with pytest.raises(gexc.NotFound) as info, ddb.database.batch() as batch:
        if op == "delete":
            batch.delete("NoSuchTable", KeySet(keys=[[1]]))
        else:
            getattr(batch, op)("NoSuchTable", ["Id"], [(1,)])
    assert _msg(info.value) == "Table not found: NoSuchTable"


# Issue 25: DDL naming a missing table. python-spanner's system test test_table_not_found (run against Cloud
# Spanner and the emulator alike) creates a database with "CREATE INDEX IDX ON NotMyTable (Field1)" and expects
# Database.create() itself to raise NotFound; the emulator's handler returns the schema's error from the
# CreateDatabase call, before any operation exists (frontend/handlers/databases.cc), and that error is
# TableNotFound, NOT_FOUND "Table not found: X" (common/errors.cc; backend/schema/updater/schema_updater_tests/
# index.cc, CreateIndex_TableNotFound).
MY_TABLE = "CREATE TABLE MyTable (Id STRING(36) NOT NULL, Field1 STRING(36) NOT NULL) PRIMARY KEY (Id)"
INDEX_ON_NOT_MY_TABLE = "CREATE INDEX IDX ON NotMyTable (Field1)"


def test_create_database_with_an_index_on_a_missing_table_is_not_found(instance: Instance) -> None:
    database = instance.database(unique("db"), ddl_statements=[MY_TABLE, INDEX_ON_NOT_MY_TABLE])
    with pytest.raises(gexc.NotFound) as info:
        database.create()  # the call, not the operation, fails
    assert _msg(info.value).endswith("Table not found: NotMyTable"), info.value
    assert not database.exists()


def test_update_ddl_with_an_index_on_a_missing_table_is_not_found(ddb: SpannerDb) -> None:
    err = _ddl_error(ddb, [INDEX_ON_NOT_MY_TABLE])
    assert isinstance(err, gexc.NotFound), err
    assert _msg(err).endswith("Table not found: NotMyTable"), err
    assert not any("NotMyTable" in statement for statement in _schema(ddb))


@pytest.mark.parametrize(
    "sql, message",
    [
        ("SELECT * FROM NoSuchTable", "Table not found: NoSuchTable [at 1:15]"),
        ("SELECT s.SingerId\nFROM Singers AS s JOIN Nope AS n ON TRUE", "Table not found: Nope [at 2:24]"),
        ("INSERT INTO NoSuchTable (Id) VALUES (1)", "Table not found: NoSuchTable [at 1:13]"),
        ("UPDATE NoSuchTable SET X = 1 WHERE TRUE", "Table not found: NoSuchTable [at 1:8]"),
        ("DELETE FROM NoSuchTable WHERE TRUE", "Table not found: NoSuchTable [at 1:13]"),
    ],
    ids=["select", "join on line 2", "insert", "update", "delete"],
)
def test_sql_naming_a_missing_table_is_invalid_argument_at_its_position(ddb: SpannerDb, sql: str, message: str) -> None:
    def work(tx: Any) -> None:
        if sql.startswith("SELECT"):
            list(tx.execute_sql(sql))
        else:
            tx.execute_update(sql)

    with pytest.raises(gexc.InvalidArgument) as info:
        ddb.database.run_in_transaction(work)
    assert _msg(info.value) == _with_caret(sql, message)


# ---- compile errors: Spanner's words, code and position --------------------------------------------------------------
# GoogleSQL reports analysis and syntax errors as INVALID_ARGUMENT with "[at line:column]" of the offending token
# (1-based), then the line and a caret under the column (_with_caret); the wording is ZetaSQL's, as Spanner and the
# official emulator answer it.

COMPILE_ERRORS = {
    "unknown column": ("SELECT Nope FROM Singers", "Unrecognized name: Nope [at 1:8]"),
    "unknown field of an alias": ("SELECT s.Nope FROM Singers AS s", "Name Nope not found inside s [at 1:10]"),
    "unknown function": ("SELECT NOPE(1)", "Function not found: NOPE [at 1:8]"),
    "empty select list": ("SELECT FROM Singers", "Syntax error: Unexpected keyword FROM [at 1:8]"),
    "misspelt keyword": ("SELEC 1", 'Syntax error: Unexpected identifier "SELEC" [at 1:1]'),
    "end of statement": ("SELECT 1 FROM Singers\nWHERE", "Syntax error: Unexpected end of statement [at 2:6]"),
    "trailing tokens": (
        "SELECT 1 FROM Singers x y",
        'Syntax error: Expected end of input but got identifier "y" [at 1:25]',
    ),
    "unclosed string": ("SELECT 'abc", "Syntax error: Unclosed string literal [at 1:8]"),
    "WHERE not BOOL": (
        "SELECT 1 FROM Singers WHERE FirstName",
        "WHERE clause should return type BOOL, but returns STRING [at 1:29]",
    ),
}


@pytest.mark.parametrize("case", list(COMPILE_ERRORS))
def test_compile_error_has_spanner_wording_and_position(ddb: SpannerDb, case: str) -> None:
    sql, message = COMPILE_ERRORS[case]
    with pytest.raises(gexc.InvalidArgument) as info:
        _query(ddb, sql)
    assert _msg(info.value) == _with_caret(sql, message)


@pytest.mark.parametrize(
    "sql, prefix, position",
    [
        (
            "SELECT 1 FROM Singers WHERE SingerId = 'a'",
            "No matching signature for operator = for argument types: INT64, STRING",
            "[at 1:29]",
        ),
        (
            "SELECT SingerId + FirstName FROM Singers",
            "No matching signature for operator + for argument types: INT64, STRING",
            "[at 1:8]",
        ),
    ],
    ids=["comparison", "arithmetic"],
)
def test_type_mismatch_is_invalid_argument_at_the_operator(
    ddb: SpannerDb, sql: str, prefix: str, position: str
) -> None:
    with pytest.raises(gexc.InvalidArgument) as info:
        _query(ddb, sql)
    assert _msg(info.value).startswith(prefix) and _msg(info.value).endswith(_with_caret(sql, position)), _msg(
        info.value
    )


@pytest.mark.parametrize(
    "sql, message",
    [
        ("UPDATE Singers SET Nope = 1 WHERE TRUE", "Column Nope is not present in table Singers [at 1:20]"),
        ("INSERT INTO Singers (SingerId, Nope) VALUES (1, 2)", "Column Nope is not present in table Singers [at 1:32]"),
        ("DELETE FROM Singers WHERE Nope = 1", "Unrecognized name: Nope [at 1:27]"),
        (
            "UPDATE Singers SET FirstName = 1 WHERE TRUE",
            "Value of type INT64 cannot be assigned to FirstName, which has type STRING [at 1:32]",
        ),
    ],
    ids=["SET unknown column", "INSERT unknown column", "WHERE unknown column", "SET wrong type"],
)
def test_dml_compile_error_has_spanner_wording_and_position(ddb: SpannerDb, sql: str, message: str) -> None:
    with pytest.raises(gexc.InvalidArgument) as info:
        ddb.database.run_in_transaction(lambda tx: tx.execute_update(sql))
    assert _msg(info.value) == _with_caret(sql, message)


# ---- CHECK, FOREIGN KEY, ROW DELETION POLICY, ALTER COLUMN, ALTER DATABASE, operation ids ---------------------------

CONSTRAINTS_DDL = [
    # "Creating and managing check constraints": CONSTRAINT name CHECK (expr) or an unnamed CHECK (expr); a row for
    # which the expression is FALSE cannot be written (NULL passes).
    """CREATE TABLE Customers (
        CustomerId INT64 NOT NULL, Name STRING(20) NOT NULL, Age INT64,
        CONSTRAINT AgeOk CHECK (Age >= 18),
        CHECK (LENGTH(Name) > 1)
    ) PRIMARY KEY (CustomerId)""",
    # "Foreign keys": enforced when the transaction commits; ON DELETE CASCADE deletes the referencing rows.
    """CREATE TABLE Orders (
        OrderId INT64 NOT NULL, CustomerId INT64, Note STRING(MAX),
        CONSTRAINT FK_OrderCustomer FOREIGN KEY (CustomerId) REFERENCES Customers (CustomerId)
    ) PRIMARY KEY (OrderId)""",
    """CREATE TABLE Lines (
        LineId INT64 NOT NULL, OrderId INT64 NOT NULL,
        CONSTRAINT FK_LineOrder FOREIGN KEY (OrderId) REFERENCES Orders (OrderId) ON DELETE CASCADE
    ) PRIMARY KEY (LineId)""",
    # "Time to live (TTL)": ROW DELETION POLICY (OLDER_THAN(timestamp_column, INTERVAL num_days DAY)).
    """CREATE TABLE Events (Id INT64 NOT NULL, SeenAt TIMESTAMP, Label STRING(10))
        PRIMARY KEY (Id), ROW DELETION POLICY (OLDER_THAN(SeenAt, INTERVAL 30 DAY))""",
]


@pytest.fixture(scope="module")
def cdb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(CONSTRAINTS_DDL)


def _write(db: SpannerDb, op: str, table: str, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    with db.database.batch() as batch:
        getattr(batch, op)(table, columns, rows)


def _count(db: SpannerDb, table: str, where: str = "TRUE") -> int:
    rows = _query(db, f"SELECT COUNT(*) FROM {table} WHERE {where}")
    return int(rows[0][0])


def test_check_constraint_refuses_a_false_row_and_passes_null(cdb: SpannerDb) -> None:
    _write(cdb, "insert_or_update", "Customers", ["CustomerId", "Name", "Age"], [(100, "Ann", 30), (101, "Bob", None)])
    with pytest.raises(gexc.OutOfRange) as info:
        _write(cdb, "insert", "Customers", ["CustomerId", "Name", "Age"], [(102, "Cid", 17)])
    assert _msg(info.value).startswith("Check constraint `Customers`.`AgeOk` is violated for key"), _msg(info.value)
    with pytest.raises(gexc.OutOfRange) as info:
        cdb.database.run_in_transaction(
            lambda tx: tx.execute_update("UPDATE Customers SET Age = 5 WHERE CustomerId = 100")
        )
    assert "`Customers`.`AgeOk`" in _msg(info.value)
    # The unnamed CHECK gets a generated name CK_<table>_...
    with pytest.raises(gexc.OutOfRange) as info:
        _write(cdb, "insert", "Customers", ["CustomerId", "Name"], [(103, "D")])
    assert _msg(info.value).startswith("Check constraint `Customers`.`CK_Customers_"), _msg(info.value)
    assert _query(cdb, "SELECT CustomerId, Age FROM Customers WHERE CustomerId >= 100 ORDER BY CustomerId") == [
        [100, 30],
        [101, None],
    ]


def test_check_constraints_in_information_schema(cdb: SpannerDb) -> None:
    # "Information schema": CHECK_CONSTRAINTS lists the CHECK constraints and the NOT NULL columns
    # (CK_IS_NOT_NULL_<table>_<column>, "<column> IS NOT NULL").
    rows = _query(
        cdb,
        "SELECT CONSTRAINT_NAME, CHECK_CLAUSE, SPANNER_STATE FROM INFORMATION_SCHEMA.CHECK_CONSTRAINTS "
        "WHERE CONSTRAINT_NAME = 'AgeOk' OR CONSTRAINT_NAME LIKE 'CK_IS_NOT_NULL_Customers_%' "
        "OR CONSTRAINT_NAME LIKE 'CK_Customers_%' ORDER BY CONSTRAINT_NAME",
    )
    assert rows[0] == ["AgeOk", "Age >= 18", "COMMITTED"]
    assert rows[1][0].startswith("CK_Customers_") and rows[1][1:] == ["LENGTH(Name) > 1", "COMMITTED"]
    assert rows[2:] == [
        ["CK_IS_NOT_NULL_Customers_CustomerId", "CustomerId IS NOT NULL", "COMMITTED"],
        ["CK_IS_NOT_NULL_Customers_Name", "Name IS NOT NULL", "COMMITTED"],
    ]
    assert _query(
        cdb,
        "SELECT CONSTRAINT_NAME, UNIQUE_CONSTRAINT_NAME, DELETE_RULE FROM INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS "
        "ORDER BY CONSTRAINT_NAME",
    ) == [["FK_LineOrder", "PK_Orders", "CASCADE"], ["FK_OrderCustomer", "PK_Customers", "NO ACTION"]]


def test_adding_a_check_that_existing_rows_break_is_refused(cdb: SpannerDb) -> None:
    _write(cdb, "insert_or_update", "Customers", ["CustomerId", "Name", "Age"], [(110, "Eve", 90)])
    err = _ddl_error(cdb, ["ALTER TABLE Customers ADD CONSTRAINT Young CHECK (Age < 80)"])
    assert isinstance(err, gexc.OutOfRange), err
    assert "Check constraint `Customers`.`Young` is violated for key" in err.message
    _ddl(cdb, ["ALTER TABLE Customers ADD CONSTRAINT NotAncient CHECK (Age < 150)"])
    with pytest.raises(gexc.OutOfRange):
        _write(cdb, "update", "Customers", ["CustomerId", "Age"], [(110, 200)])
    _ddl(cdb, ["ALTER TABLE Customers DROP CONSTRAINT NotAncient"])
    _write(cdb, "update", "Customers", ["CustomerId", "Age"], [(110, 200)])
    assert _query(cdb, "SELECT Age FROM Customers WHERE CustomerId = 110") == [[200]]


def test_foreign_key_is_checked_when_the_transaction_commits(cdb: SpannerDb) -> None:
    with pytest.raises(gexc.FailedPrecondition) as info:
        _write(cdb, "insert", "Orders", ["OrderId", "CustomerId"], [(1, 999)])
    assert _msg(info.value).startswith(
        "Foreign key `FK_OrderCustomer` constraint violation on table `Orders`. Cannot find referenced key"
    ), _msg(info.value)
    assert _count(cdb, "Orders", "OrderId = 1") == 0
    # At commit, not per mutation: the referencing row may come before the referenced one.
    with cdb.database.batch() as batch:
        batch.insert("Orders", ["OrderId", "CustomerId"], [(2, 200)])
        batch.insert("Customers", ["CustomerId", "Name", "Age"], [(200, "Fay", 40)])
    # A NULL foreign key references nothing and needs nothing.
    _write(cdb, "insert", "Orders", ["OrderId", "CustomerId"], [(3, None)])
    assert _query(cdb, "SELECT OrderId, CustomerId FROM Orders WHERE OrderId IN (2, 3) ORDER BY OrderId") == [
        [2, 200],
        [3, None],
    ]


def test_referenced_row_cannot_go_and_cascade_deletes_referencing_rows(cdb: SpannerDb) -> None:
    with cdb.database.batch() as batch:
        batch.insert("Customers", ["CustomerId", "Name", "Age"], [(300, "Gus", 50)])
        batch.insert("Orders", ["OrderId", "CustomerId"], [(30, 300)])
        batch.insert("Lines", ["LineId", "OrderId"], [(1, 30), (2, 30)])
    with pytest.raises(gexc.FailedPrecondition) as info:
        _write_delete(cdb, "Customers", 300)
    assert _msg(info.value).startswith(
        "Foreign key `FK_OrderCustomer` constraint violation when deleting or updating referenced key"
    ), _msg(info.value)
    assert _count(cdb, "Customers", "CustomerId = 300") == 1
    _write_delete(cdb, "Orders", 30)
    assert _count(cdb, "Lines", "OrderId = 30") == 0, "ON DELETE CASCADE deletes the referencing rows"
    _write_delete(cdb, "Customers", 300)
    assert _count(cdb, "Customers", "CustomerId = 300") == 0


def _write_delete(db: SpannerDb, table: str, key: int) -> None:
    with db.database.batch() as batch:
        batch.delete(table, KeySet(keys=[[key]]))


def test_table_referenced_by_a_foreign_key_cannot_be_dropped(cdb: SpannerDb) -> None:
    err = _ddl_error(cdb, ["DROP TABLE Customers"])
    assert isinstance(err, gexc.FailedPrecondition), err
    assert (
        "Cannot drop table `Customers`. It is referenced by one or more foreign keys: FK_OrderCustomer." in err.message
    )


def test_row_deletion_policy_is_stored_and_shown(cdb: SpannerDb) -> None:
    def policy() -> Any:
        return _query(
            cdb, "SELECT ROW_DELETION_POLICY_EXPRESSION FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'Events'"
        )

    assert policy() == [["OLDER_THAN(SeenAt, INTERVAL 30 DAY)"]]
    assert any("ROW DELETION POLICY (OLDER_THAN(SeenAt, INTERVAL 30 DAY))" in s for s in _schema(cdb))
    _ddl(cdb, ["ALTER TABLE Events REPLACE ROW DELETION POLICY (OLDER_THAN(SeenAt, INTERVAL 7 DAY))"])
    assert policy() == [["OLDER_THAN(SeenAt, INTERVAL 7 DAY)"]]
    _ddl(cdb, ["ALTER TABLE Events DROP ROW DELETION POLICY"])
    assert policy() == [[None]]
    err = _ddl_error(cdb, ["ALTER TABLE Events ADD ROW DELETION POLICY (OLDER_THAN(Label, INTERVAL 1 DAY))"])
    assert isinstance(err, gexc.InvalidArgument), err
    assert "column Label in table Events is not of type TIMESTAMP" in err.message
    _ddl(cdb, ["ALTER TABLE Events ADD ROW DELETION POLICY (OLDER_THAN(SeenAt, INTERVAL 30 DAY))"])
    assert policy() == [["OLDER_THAN(SeenAt, INTERVAL 30 DAY)"]]


def test_alter_column_where_spanner_allows_it(cdb: SpannerDb) -> None:
    _write(cdb, "insert_or_update", "Events", ["Id", "Label"], [(1, "0123456789"), (2, None)])
    # A longer STRING keeps the values; a shorter one must still hold them.
    _ddl(cdb, ["ALTER TABLE Events ALTER COLUMN Label STRING(20)"])
    _write(cdb, "update", "Events", ["Id", "Label"], [(2, "x" * 20)])
    err = _ddl_error(cdb, ["ALTER TABLE Events ALTER COLUMN Label STRING(5)"])
    assert isinstance(err, gexc.FailedPrecondition), err
    assert "Reducing the length of column Label to 5 is not allowed" in err.message
    # NOT NULL: refused while a NULL is there, then added, then dropped again.
    _write(cdb, "update", "Events", ["Id", "Label"], [(2, None)])
    err = _ddl_error(cdb, ["ALTER TABLE Events ALTER COLUMN Label STRING(20) NOT NULL"])
    assert isinstance(err, gexc.FailedPrecondition), err
    assert "Adding a NOT NULL constraint on a column Events.Label is not allowed" in err.message
    _write(cdb, "update", "Events", ["Id", "Label"], [(2, "two")])
    _ddl(cdb, ["ALTER TABLE Events ALTER COLUMN Label STRING(20) NOT NULL"])
    with pytest.raises(gexc.FailedPrecondition):
        _write(cdb, "update", "Events", ["Id", "Label"], [(2, None)])
    _ddl(cdb, ["ALTER TABLE Events ALTER COLUMN Label STRING(20)"])
    _write(cdb, "update", "Events", ["Id", "Label"], [(2, None)])
    assert _query(cdb, "SELECT Id, Label FROM Events WHERE Id IN (1, 2) ORDER BY Id") == [[1, "0123456789"], [2, None]]
    # A change of type Spanner does not allow.
    err = _ddl_error(cdb, ["ALTER TABLE Events ALTER COLUMN Label INT64"])
    assert isinstance(err, gexc.InvalidArgument), err
    assert "Cannot change type of column `Label` from `STRING(20)` to `INT64`" in err.message
    assert _query(
        cdb,
        "SELECT SPANNER_TYPE, IS_NULLABLE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'Events' "
        "AND COLUMN_NAME = 'Label'",
    ) == [["STRING(20)", "YES"]]


def test_alter_column_sets_allow_commit_timestamp(cdb: SpannerDb) -> None:
    from google.cloud.spanner_v1 import COMMIT_TIMESTAMP

    with pytest.raises(gexc.FailedPrecondition):
        _write(cdb, "insert_or_update", "Events", ["Id", "SeenAt"], [(5, COMMIT_TIMESTAMP)])
    _ddl(cdb, ["ALTER TABLE Events ALTER COLUMN SeenAt SET OPTIONS (allow_commit_timestamp = true)"])
    with cdb.database.batch() as batch:
        batch.insert_or_update("Events", ["Id", "SeenAt"], [(5, COMMIT_TIMESTAMP)])
    assert _query(cdb, "SELECT SeenAt FROM Events WHERE Id = 5") == [[batch.committed]]


def test_alter_database_set_options(cdb: SpannerDb) -> None:
    # "ALTER DATABASE database_id SET OPTIONS (version_retention_period = '...', default_leader = '...')".
    db_id = cdb.database.database_id
    _ddl(cdb, [f"ALTER DATABASE `{db_id}` SET OPTIONS (version_retention_period = '3d')"])
    assert _query(
        cdb,
        "SELECT OPTION_NAME, OPTION_TYPE, OPTION_VALUE FROM INFORMATION_SCHEMA.DATABASE_OPTIONS "
        "WHERE OPTION_NAME = 'version_retention_period'",
    ) == [["version_retention_period", "STRING", "3d"]]
    cdb.database.reload()
    assert cdb.database.version_retention_period == "3d"
    err = _ddl_error(cdb, [f"ALTER DATABASE `{db_id}` SET OPTIONS (no_such_option = 1)"])
    assert isinstance(err, gexc.InvalidArgument), err
    assert "Option: no_such_option is unknown." in err.message


def test_update_ddl_operation_id_names_the_operation(cdb: SpannerDb) -> None:
    # UpdateDatabaseDdlRequest.operation_id: "the operation's name is <database>/operations/<operation_id>";
    # a second request with the same id fails with ALREADY_EXISTS.
    op_id = "op_" + unique("x").replace("-", "_")
    table = "T" + op_id
    op = cdb.database.update_ddl([f"CREATE TABLE {table} (Id INT64) PRIMARY KEY (Id)"], operation_id=op_id)
    op.result(OPERATION_TIMEOUT_S)
    assert op.operation.name == f"{cdb.database.name}/operations/{op_id}"
    with pytest.raises(gexc.AlreadyExists) as info:
        cdb.database.update_ddl([f"DROP TABLE {table}"], operation_id=op_id).result(OPERATION_TIMEOUT_S)
    assert _msg(info.value) == f"Operation already exists: {cdb.database.name}/operations/{op_id}"
    with pytest.raises(gexc.InvalidArgument):
        cdb.database.update_ddl([f"DROP TABLE {table}"], operation_id="Not-Valid").result(OPERATION_TIMEOUT_S)
    assert any(s.startswith(f"CREATE TABLE {table} ") for s in _schema(cdb)), "neither failed request ran its DDL"


# ---- proto bundles: PROTO and ENUM columns -------------------------------------------------------------------------
# "Work with protocol buffers in GoogleSQL": CREATE PROTO BUNDLE (type, ...) with the FileDescriptorSet in the request's
# proto_descriptors; a column's type may be a bundled message (PROTO) or enum (ENUM); values go on the wire as the
# serialized message (base64) and the enum's number; GetDatabaseDdl returns the bundle and the descriptors.


def _descriptor_set(with_album: bool = False) -> bytes:
    from google.protobuf import descriptor_pb2

    fd = descriptor_pb2.FileDescriptorProto(name="spanload_test/music.proto", package="spanload.music", syntax="proto3")
    info = fd.message_type.add(name="SingerInfo")
    info.field.add(name="nationality", number=1, type=9, label=1)  # TYPE_STRING, LABEL_OPTIONAL
    info.field.add(name="rank", number=2, type=3, label=1)  # TYPE_INT64
    genre = fd.enum_type.add(name="Genre")
    for number, name in enumerate(["POP", "JAZZ", "ROCK"]):
        genre.value.add(name=name, number=number)
    if with_album:
        album = fd.message_type.add(name="AlbumInfo")
        album.field.add(name="title", number=1, type=9, label=1)
    return descriptor_pb2.FileDescriptorSet(file=[fd]).SerializeToString()


def _proto_classes() -> tuple[Any, Any]:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

    pool = descriptor_pool.DescriptorPool()
    fds = descriptor_pb2.FileDescriptorSet.FromString(_descriptor_set())
    for fd in fds.file:
        pool.Add(fd)
    info = message_factory.GetMessageClass(pool.FindMessageTypeByName("spanload.music.SingerInfo"))
    genre = EnumTypeWrapper(pool.FindEnumTypeByName("spanload.music.Genre"))
    return info, genre


PROTO_DDL = [
    "CREATE PROTO BUNDLE (spanload.music.SingerInfo, spanload.music.Genre)",
    """CREATE TABLE Artists (
        ArtistId INT64 NOT NULL, Info spanload.music.SingerInfo, Genre spanload.music.Genre,
        Genres ARRAY<spanload.music.Genre>
    ) PRIMARY KEY (ArtistId)""",
    "CREATE INDEX ArtistsByGenre ON Artists (Genre)",
]


@pytest.fixture(scope="module")
def pdb(instance: Instance, server_address: str, session_mode: str) -> Iterator[SpannerDb]:
    """A database created with the bundle's descriptors (CreateDatabaseRequest.proto_descriptors)."""
    database = instance.database(unique("db"), ddl_statements=PROTO_DDL, proto_descriptors=_descriptor_set())
    database.create().result(OPERATION_TIMEOUT_S)
    yield SpannerDb(database, instrument(database, server_address), session_mode)
    database.drop()


def test_proto_bundle_is_in_get_database_ddl(pdb: SpannerDb) -> None:
    pdb.database.reload()
    statements = list(pdb.database.ddl_statements)
    assert statements[0] == "CREATE PROTO BUNDLE (\n  spanload.music.SingerInfo,\n  spanload.music.Genre\n)"
    assert "  Info spanload.music.SingerInfo,\n" in statements[1]
    assert pdb.database.proto_descriptors == _descriptor_set()


def test_proto_and_enum_columns_write_read_and_query(pdb: SpannerDb) -> None:
    info_cls, genre = _proto_classes()
    ann = info_cls(nationality="FR", rank=3)
    with pdb.database.batch() as batch:
        batch.insert_or_update(
            "Artists",
            ["ArtistId", "Info", "Genre", "Genres"],
            [
                (1, ann, genre.Value("JAZZ"), [genre.Value("POP"), genre.Value("ROCK")]),
                (2, None, genre.Value("ROCK"), None),
            ],
        )
    # Without column_info the client returns the serialized message and the enum's number.
    with pdb.database.snapshot() as snap:
        rows = [list(r) for r in snap.read("Artists", ["ArtistId", "Info", "Genre", "Genres"], KeySet(all_=True))]
    assert rows == [[1, ann.SerializeToString(), 1, [0, 2]], [2, None, 2, None]]
    # With column_info, the message and the enum's name.
    with pdb.database.snapshot() as snap:
        got = [
            list(r)
            for r in snap.execute_sql(
                "SELECT Info, Genre FROM Artists WHERE ArtistId = 1", column_info={"Info": info_cls(), "Genre": genre}
            )
        ]
    assert got == [[ann, "JAZZ"]]
    with pdb.database.snapshot() as snap:
        result = snap.execute_sql("SELECT Info, Genre FROM Artists LIMIT 1")
        list(result)
        fields = {f.name: (f.type_.code, f.type_.proto_type_fqn) for f in result.fields}
    from google.cloud.spanner_v1 import TypeCode

    assert fields == {
        "Info": (TypeCode.PROTO, "spanload.music.SingerInfo"),
        "Genre": (TypeCode.ENUM, "spanload.music.Genre"),
    }


def test_enum_parameter_and_index_on_an_enum_column(pdb: SpannerDb) -> None:
    info_cls, genre = _proto_classes()
    with pdb.database.batch() as batch:
        batch.insert_or_update("Artists", ["ArtistId", "Genre"], [(10, genre.Value("POP")), (11, genre.Value("POP"))])
    rows = _query(
        pdb,
        "SELECT ArtistId FROM Artists@{FORCE_INDEX=ArtistsByGenre} WHERE Genre = @g ORDER BY ArtistId",
        {"g": genre.Value("POP")},
        {"g": param_types.ProtoEnum(genre)},
    )
    assert rows == [[10], [11]]
    kai = info_cls(nationality="JP", rank=7)
    with pdb.database.batch() as batch:
        batch.insert_or_update("Artists", ["ArtistId", "Info"], [(12, kai)])
    rows = _query(pdb, "SELECT ArtistId FROM Artists WHERE Info = @p", {"p": kai}, {"p": param_types.ProtoMessage(kai)})
    assert rows == [[12]]


def test_alter_proto_bundle(pdb: SpannerDb) -> None:
    pdb.database.update_ddl(
        [
            "ALTER PROTO BUNDLE INSERT (spanload.music.AlbumInfo)",
            "CREATE TABLE Records (Id INT64, A spanload.music.AlbumInfo) PRIMARY KEY (Id)",
        ],
        proto_descriptors=_descriptor_set(with_album=True),
    ).result(OPERATION_TIMEOUT_S)
    pdb.database.reload()
    assert pdb.database.ddl_statements[0].endswith("spanload.music.Genre,\n  spanload.music.AlbumInfo\n)")
    err = _ddl_error(pdb, ["ALTER PROTO BUNDLE DELETE (spanload.music.AlbumInfo)"])
    assert isinstance(err, gexc.FailedPrecondition), err
    assert "Removed type spanload.music.AlbumInfo is still being used by column Records.A" in err.message
    err = _ddl_error(pdb, ["CREATE TABLE Bad (Id INT64, X spanload.music.Nope) PRIMARY KEY (Id)"])
    assert isinstance(err, gexc.NotFound), err
    assert "Type not found: `spanload.music.Nope`" in err.message


def test_enum_number_outside_the_enum_is_refused(pdb: SpannerDb) -> None:
    # An ENUM column holds the enum's values only; Genre defines 0, 1 and 2.
    with pytest.raises(gexc.FailedPrecondition) as info, pdb.database.batch() as batch:
        batch.insert_or_update("Artists", ["ArtistId", "Genre"], [(20, 7)])
    assert _msg(info.value) == (
        "Enum validation on column Artists.Genre failed at key [20] "
        "because type spanload.music.Genre cannot be set to 7"
    )
    with pytest.raises(gexc.FailedPrecondition), pdb.database.batch() as batch:
        batch.insert_or_update("Artists", ["ArtistId", "Genres"], [(21, [0, 9])])
    assert _count(pdb, "Artists", "ArtistId IN (20, 21)") == 0


def test_string_literal_names_an_enum_value(pdb: SpannerDb) -> None:
    # GoogleSQL coerces a string literal to an enum type by the value's name.
    pdb.database.run_in_transaction(
        lambda tx: tx.execute_update("INSERT OR UPDATE INTO Artists (ArtistId, Genre) VALUES (30, 'ROCK')")
    )
    assert _query(pdb, "SELECT Genre FROM Artists WHERE ArtistId = 30") == [[2]]
    assert _query(pdb, "SELECT ArtistId FROM Artists WHERE Genre = 'ROCK' AND ArtistId >= 30") == [[30]]
    with pytest.raises(gexc.InvalidArgument) as info:
        _query(pdb, "SELECT ArtistId FROM Artists WHERE Genre = 'DISCO'")
    assert _msg(info.value) == _with_caret(
        "SELECT ArtistId FROM Artists WHERE Genre = 'DISCO'",
        'Could not cast literal "DISCO" to type spanload.music.Genre [at 1:44]',
    )


def test_proto_field_access_in_queries(pdb: SpannerDb) -> None:
    # "Work with protocol buffers": a message column's fields are read with the dot, an unset field reads as its
    # default; the field's type follows the proto (int64 -> INT64, string -> STRING).
    info_cls, _ = _proto_classes()
    with pdb.database.batch() as batch:
        batch.insert_or_update(
            "Artists",
            ["ArtistId", "Info"],
            [(40, info_cls(nationality="BR", rank=9)), (41, info_cls(nationality="US"))],
        )
    assert _query(
        pdb, "SELECT a.ArtistId, a.Info.nationality, a.Info.rank FROM Artists AS a WHERE a.ArtistId >= 40 ORDER BY 1"
    ) == [[40, "BR", 9], [41, "US", 0]]
    assert _query(pdb, "SELECT ArtistId FROM Artists WHERE Info.rank > 5 AND ArtistId >= 40") == [[40]]
    with pytest.raises(gexc.InvalidArgument) as info:
        _query(pdb, "SELECT Info.nope FROM Artists")
    assert _msg(info.value) == _with_caret(
        "SELECT Info.nope FROM Artists", "Field name nope does not exist in spanload.music.SingerInfo [at 1:13]"
    )


def test_cast_to_and_from_enum_and_proto(pdb: SpannerDb) -> None:
    # CAST(enum AS STRING) is its value's name, AS INT64 its number; CAST(string or int AS enum) needs a defined value;
    # a message casts to BYTES as its serialized form.
    info_cls, genre = _proto_classes()
    msg = info_cls(nationality="CA", rank=4)
    with pdb.database.batch() as batch:
        batch.insert_or_update("Artists", ["ArtistId", "Genre", "Info"], [(50, genre.Value("JAZZ"), msg)])
    assert _query(
        pdb,
        "SELECT CAST(Genre AS STRING), CAST(Genre AS INT64), CAST(Info AS BYTES) FROM Artists WHERE ArtistId = 50",
    ) == [["JAZZ", 1, base64.b64encode(msg.SerializeToString())]]  # the client hands BYTES over as base64
    assert _query(pdb, "SELECT CAST('ROCK' AS spanload.music.Genre), CAST(0 AS spanload.music.Genre)") == [[2, 0]]
    with pytest.raises(gexc.OutOfRange) as info:
        _query(pdb, "SELECT CAST(7 AS spanload.music.Genre)")
    assert _msg(info.value) == "Out of range cast of integer 7 to enum type spanload.music.Genre"


def test_foreign_key_is_checked_at_the_end_of_a_dml_statement(cdb: SpannerDb) -> None:
    # A DML statement's writes are checked when the statement ends; the transaction goes on after it.
    outcome: list[str] = []

    def work(tx: Any) -> None:
        # The transaction begins with a read: the Python client does not go on after a failed first statement
        # (the one that begins the transaction inline).
        assert list(tx.execute_sql("SELECT COUNT(*) FROM Orders WHERE OrderId = 70")) == [[0]]
        with pytest.raises(gexc.FailedPrecondition) as info:
            tx.execute_update("INSERT INTO Orders (OrderId, CustomerId) VALUES (70, 777)")
        outcome.append(_msg(info.value))
        tx.execute_update("INSERT INTO Customers (CustomerId, Name, Age) VALUES (777, 'Hal', 20)")
        tx.execute_update("INSERT INTO Orders (OrderId, CustomerId) VALUES (70, 777)")

    cdb.database.run_in_transaction(work)
    assert outcome[0].startswith("Foreign key `FK_OrderCustomer` constraint violation on table `Orders`."), outcome
    assert _query(cdb, "SELECT CustomerId FROM Orders WHERE OrderId = 70") == [[777]]
