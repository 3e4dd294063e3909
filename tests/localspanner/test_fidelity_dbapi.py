"""Issue 25: the Python client's DB-API (google.cloud.spanner_dbapi) on a read-only connection.

Expected behaviour comes from the official client's system test and the official emulator's source, never from the
server's own output:
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

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_dbapi import connect
from google.cloud.spanner_dbapi.connection import Connection
from google.cloud.spanner_dbapi.exceptions import ProgrammingError
from google.cloud.spanner_v1 import ExecuteSqlRequest, TransactionOptions, TransactionSelector

from .conftest import DatabaseFactory, SpannerDb
from .rpc_recorder import raw_spanner_client

DDL = ["CREATE TABLE contacts (contact_id INT64, first_name STRING(1024), email STRING(1024)) PRIMARY KEY (contact_id)"]
READ_ONLY_DML = (
    "DML statements can only be performed in a read-write or partitioned-dml transaction. "
    "Current transaction type is ReadOnly."
)
SINGLE_USE_DML = "DML statements may not be performed in single-use transactions, to avoid replay."


@pytest.fixture(scope="module")
def adb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


@pytest.fixture
def conn(adb: SpannerDb) -> Iterator[Connection]:
    database = adb.database
    connection = connect(database._instance.instance_id, database.database_id, client=database._instance._client)
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
