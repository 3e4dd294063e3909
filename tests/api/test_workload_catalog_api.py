"""GET /api/workloads/catalog (issue 26: the editor completes table and column names from the
target): the tables and columns of a database of the server's target, from INFORMATION_SCHEMA, as
the DDL that made them declares them; a database not created yet says so, with no tables."""

from __future__ import annotations

import socket
import uuid

import pytest
from fastapi.testclient import TestClient

from spanload.main import create_app
from spanload.model.config import Target
from spanload.spanner import client as spanner_client
from spanload.spanner import schemas
from spanload.spanner.local_server import LocalSpanner
from tests.api.conftest import local_client, make_settings

DDL = [
    "CREATE TABLE Shelves (ShelfId INT64 NOT NULL, Label STRING(40)) PRIMARY KEY (ShelfId)",
    "CREATE TABLE Books (ShelfId INT64 NOT NULL, BookId STRING(36) NOT NULL, Pages INT64, Tags ARRAY<STRING(MAX)>)"
    " PRIMARY KEY (ShelfId, BookId), INTERLEAVE IN PARENT Shelves ON DELETE CASCADE",
]


def test_the_catalog_lists_a_databases_tables_and_columns_as_its_ddl_made_them(
    client: TestClient, local_spanner: LocalSpanner
) -> None:
    database = f"catalog-{uuid.uuid4().hex[:8]}"
    target = Target(database=database)
    spanner = spanner_client.make_client(target, local_spanner.address)
    try:
        schemas.ensure_ddl(spanner, target, DDL, "the catalog test's tables")
    finally:
        spanner.close()
    answer = client.get("/api/workloads/catalog", params={"database": database})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["database"], body["exists"]) == (database, True)
    tables = {t["name"]: [(c["name"], c["type"]) for c in t["columns"]] for t in body["tables"]}
    assert tables == {
        "Shelves": [("ShelfId", "INT64"), ("Label", "STRING(40)")],
        "Books": [("ShelfId", "INT64"), ("BookId", "STRING(36)"), ("Pages", "INT64"), ("Tags", "ARRAY<STRING(MAX)>")],
    }

    missing = client.get("/api/workloads/catalog", params={"database": f"none-{uuid.uuid4().hex[:8]}"}).json()
    assert (missing["exists"], missing["tables"]) == (False, [])
    bad = client.get("/api/workloads/catalog", params={"database": "x" * 500})
    assert bad.status_code == 422 and "database" in bad.text, bad.text


def test_an_unreachable_target_says_the_catalog_could_not_read_its_tables(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The 503's sentence names what the caller asked for (its tables), not a validation it never asked."""
    with socket.socket() as free:  # a port nothing listens on once closed
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    settings = make_settings(
        tmp_path_factory.mktemp("catalog"), local_spanner_host="127.0.0.1", local_spanner_port=port
    )
    with local_client(create_app(settings)) as client:
        answer = client.get("/api/workloads/catalog")
    assert answer.status_code == 503, answer.text
    assert answer.json()["detail"].startswith("cannot read the tables of target local: "), answer.text
