"""Issue 25: the Python client's DB-API (google.cloud.spanner_dbapi): a read-only connection, and the cases its own
system tests skip "because the emulator does not support" them.

Expected behaviour comes from the official client's system tests (python-spanner tests/system/test_dbapi.py) and the
official emulator's source, never from the server's own output:
- test_autocommit_with_json_data, test_json_array ("Emulator does not support json."): a JSON column created by DDL
  in autocommit mode takes a JsonObject parameter and reads back as the same object; a JSON array reads back as a
  JsonObject serialized "[1,2,3]".
- test_dml_returning_insert / _update / _delete ("Emulator does not support DML Returning."), in autocommit mode and
  in a transaction: the cursor fetches the returned row, and rowcount is 1.
- Two connections with read-write transactions open at once ("Emulator does not support multiple parallel
  transactions" / "concurrent transactions"): here on different rows, so both commit; the emulator aborts one.
- python-spanner tests/system/test_dbapi.py, test_read_only and test_read_only_dml: a connection with
  ``read_only = True`` runs queries in read-only transactions, and DML on it raises ``ProgrammingError``. The DB-API
  cursor maps INVALID_ARGUMENT to ProgrammingError and FAILED_PRECONDITION to IntegrityError (cursor.py), so the
  server must refuse with INVALID_ARGUMENT.
- cloud-spanner-emulator frontend/handlers/queries.cc and common/errors.cc: DML in a read-only transaction is
  ReadOnlyTransactionDoesNotSupportDml, INVALID_ARGUMENT "DML statements can only be performed in a read-write or
  partitioned-dml transaction. Current transaction type is ReadOnly."; DML with a single-use selector is
  DmlDoesNotSupportSingleUseTransaction, INVALID_ARGUMENT "DML statements may not be performed in single-use
  transactions, to avoid replay."
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_dbapi import connect
from google.cloud.spanner_dbapi.connection import Connection
from google.cloud.spanner_dbapi.exceptions import ProgrammingError
from google.cloud.spanner_v1 import ExecuteSqlRequest, TransactionOptions, TransactionSelector
from google.cloud.spanner_v1.data_types import JsonObject

from .conftest import DatabaseFactory, SpannerDb
from .rpc_recorder import raw_spanner_client

DDL = [
    "CREATE TABLE contacts (contact_id INT64, first_name STRING(1024), last_name STRING(1024), email STRING(1024)) "
    "PRIMARY KEY (contact_id)"
]
READ_ONLY_DML = (
    "DML statements can only be performed in a read-write or partitioned-dml transaction. "
    "Current transaction type is ReadOnly."
)
SINGLE_USE_DML = "DML statements may not be performed in single-use transactions, to avoid replay."


@pytest.fixture(scope="module")
def adb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


def _connect(adb: SpannerDb) -> Connection:
    database = adb.database
    return connect(database._instance.instance_id, database.database_id, client=database._instance._client)


@pytest.fixture
def conn(adb: SpannerDb) -> Iterator[Connection]:
    adb.database.run_in_transaction(lambda tx: tx.execute_update("DELETE FROM contacts WHERE true"))
    connection = _connect(adb)
    yield connection
    connection.close()


def test_read_only_connection_queries(conn: Connection) -> None:
    conn.read_only = True
    cursor = conn.cursor()
    cursor.execute("SELECT * FROM contacts")
    assert cursor.fetchall() == []
    conn.commit()


def test_read_only_connection_refuses_dml_as_programming_error(conn: Connection) -> None:
    conn.read_only = True
    cursor = conn.cursor()
    with pytest.raises(ProgrammingError):  # the DB-API keeps the error's details, not its message
        cursor.execute("UPDATE contacts SET first_name = 'updated-first-name' WHERE first_name = 'first-name'")


def test_dml_in_a_read_only_transaction_is_invalid_argument(adb: SpannerDb) -> None:
    with adb.database.snapshot(multi_use=True) as snap, pytest.raises(gexc.InvalidArgument) as err:
        list(snap.execute_sql("DELETE FROM contacts WHERE TRUE"))
    assert err.value.message.startswith(READ_ONLY_DML)


def test_dml_in_a_single_use_transaction_is_invalid_argument(adb: SpannerDb, server_address: str) -> None:
    api = raw_spanner_client(server_address)
    session = api.create_session(database=adb.database.name)
    selector = TransactionSelector(single_use=TransactionOptions(read_only=TransactionOptions.ReadOnly(strong=True)))
    with pytest.raises(gexc.InvalidArgument) as err:
        api.execute_sql(
            ExecuteSqlRequest(session=session.name, sql="DELETE FROM contacts WHERE TRUE", transaction=selector)
        )
    assert err.value.message == SINGLE_USE_DML


# ---- what the official client's system tests skip against the emulator --------------------------------------------


def test_autocommit_with_json_data(conn: Connection) -> None:
    conn.autocommit = True
    cursor = conn.cursor()
    cursor.execute("CREATE TABLE JsonDetails (DataId INT64 NOT NULL, Details JSON) PRIMARY KEY (DataId)")
    try:
        cursor.execute(
            "INSERT INTO JsonDetails (DataId, Details) VALUES (%s, %s)",
            (123, JsonObject({"name": "Jakob", "age": "26"})),
        )
        cursor.execute("SELECT * FROM JsonDetails")
        got_rows = cursor.fetchall()
        assert len(got_rows) == 1
        assert got_rows[0][0] == 123
        assert got_rows[0][1] == {"age": "26", "name": "Jakob"}
        cursor.execute("INSERT INTO JsonDetails (DataId, Details) VALUES (%s, %s)", [1, JsonObject([1, 2, 3])])
        cursor.execute("SELECT * FROM JsonDetails WHERE DataId = 1")
        row = cursor.fetchone()
        assert isinstance(row[1], JsonObject)
        assert row[1].serialize() == "[1,2,3]"
    finally:
        cursor.execute("DROP TABLE JsonDetails")


INSERT_CONTACT = (
    "INSERT INTO contacts (contact_id, first_name, last_name, email) "
    "VALUES (1, 'first-name', 'last-name', 'test.email@example.com')"
)


@pytest.mark.parametrize("autocommit", [False, True], ids=["transaction", "autocommit"])
@pytest.mark.parametrize(
    "setup, sql, returned",
    [
        ([], INSERT_CONTACT + " THEN RETURN contact_id, first_name", (1, "first-name")),
        (
            [INSERT_CONTACT],
            "UPDATE contacts SET first_name = 'new-name' WHERE contact_id = 1 THEN RETURN contact_id, first_name",
            (1, "new-name"),
        ),
        (
            [INSERT_CONTACT],
            "DELETE FROM contacts WHERE contact_id = 1 THEN RETURN contact_id, first_name",
            (1, "first-name"),
        ),
    ],
    ids=["insert", "update", "delete"],
)
def test_dml_returning(
    conn: Connection, autocommit: bool, setup: list[str], sql: str, returned: tuple[Any, ...]
) -> None:
    conn.autocommit = autocommit
    cursor = conn.cursor()
    for statement in setup:
        cursor.execute(statement)
        assert cursor.rowcount == 1
    cursor.execute(sql)
    assert cursor.fetchone() == returned
    assert cursor.rowcount == 1
    if not autocommit:
        conn.commit()


def test_two_connections_with_open_read_write_transactions_both_commit(conn: Connection, adb: SpannerDb) -> None:
    other = _connect(adb)
    try:
        first, second = conn.cursor(), other.cursor()
        first.execute(INSERT_CONTACT)
        second.execute(INSERT_CONTACT.replace("VALUES (1,", "VALUES (2,"))
        first.execute("UPDATE contacts SET email = 'one@example.com' WHERE contact_id = 1")
        second.execute("UPDATE contacts SET email = 'two@example.com' WHERE contact_id = 2")
        conn.commit()
        other.commit()
    finally:
        other.close()
    cursor = conn.cursor()
    cursor.execute("SELECT contact_id, email FROM contacts ORDER BY contact_id")
    assert cursor.fetchall() == [(1, "one@example.com"), (2, "two@example.com")]
    conn.commit()
