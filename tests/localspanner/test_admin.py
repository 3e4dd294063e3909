"""Issue 8, "gRPC services": DatabaseAdmin, InstanceAdmin and Operations through the official client."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_admin_database_v1 import (
    CreateDatabaseMetadata,
    GetDatabaseDdlRequest,
    UpdateDatabaseDdlMetadata,
)
from google.cloud.spanner_admin_database_v1 import Database as DatabasePb
from google.cloud.spanner_admin_instance_v1 import CreateInstanceMetadata
from google.cloud.spanner_admin_instance_v1 import Instance as InstancePb
from google.cloud.spanner_v1 import Client
from google.cloud.spanner_v1.instance import Instance
from google.longrunning import operations_pb2  # type: ignore[import-untyped]

from .conftest import OPERATION_TIMEOUT_S, create_instance, unique

TABLE_A = "CREATE TABLE A (Id INT64 NOT NULL, Name STRING(100)) PRIMARY KEY (Id)"
TABLE_B = "CREATE TABLE B (Id INT64 NOT NULL, V FLOAT64) PRIMARY KEY (Id)"


def test_instance_configs_are_listed_and_fetched(spanner_client: Client) -> None:
    configs = list(spanner_client.list_instance_configs())
    names = [c.name for c in configs]
    wanted = f"projects/{spanner_client.project}/instanceConfigs/emulator-config"
    assert wanted in names, f"ListInstanceConfigs does not offer emulator-config: {names}"
    got = spanner_client.instance_admin_api.get_instance_config(name=wanted)
    assert got.name == wanted
    with pytest.raises(gexc.NotFound):
        spanner_client.instance_admin_api.get_instance_config(
            name=f"projects/{spanner_client.project}/instanceConfigs/nosuchconfig"
        )


def test_instance_lifecycle(spanner_client: Client) -> None:
    """CreateInstance (metadata and response types), GetInstance, ListInstances, DeleteInstance."""
    instance_id = unique("inst")
    config = f"projects/{spanner_client.project}/instanceConfigs/emulator-config"
    inst = spanner_client.instance(instance_id, configuration_name=config, display_name="Life Cycle", node_count=1)
    op = inst.create()
    created = op.result(OPERATION_TIMEOUT_S)
    assert isinstance(created, InstancePb), f"CreateInstance response type: {type(created)}"
    assert created.name == inst.name
    assert isinstance(op.metadata, CreateInstanceMetadata), f"CreateInstance metadata: {type(op.metadata)}"
    assert op.metadata.instance.name == inst.name

    fetched = spanner_client.instance(instance_id)
    fetched.reload()
    assert fetched.display_name == "Life Cycle"
    assert fetched.configuration_name == config
    assert inst.name in [i.name for i in spanner_client.list_instances()]

    with pytest.raises((gexc.AlreadyExists, gexc.Conflict)):
        spanner_client.instance(instance_id, configuration_name=config, node_count=1).create().result(
            OPERATION_TIMEOUT_S
        )

    inst.delete()
    assert not inst.exists()
    with pytest.raises(gexc.NotFound):
        spanner_client.instance_admin_api.get_instance(name=inst.name)
    assert inst.name not in [i.name for i in spanner_client.list_instances()]


def test_create_database_with_extra_statements(instance: Instance) -> None:
    db = instance.database(unique("db"), ddl_statements=[TABLE_A, TABLE_B])
    op = db.create()
    created = op.result(OPERATION_TIMEOUT_S)
    assert isinstance(created, DatabasePb), f"CreateDatabase response type: {type(created)}"
    assert created.name == db.name
    assert isinstance(op.metadata, CreateDatabaseMetadata), f"CreateDatabase metadata: {type(op.metadata)}"
    assert op.metadata.database == db.name
    try:
        ddl = instance._client.database_admin_api.get_database_ddl(database=db.name).statements
        assert [s.split("(")[0].strip() for s in ddl] == ["CREATE TABLE A", "CREATE TABLE B"], ddl
        with db.batch() as batch:
            batch.insert("A", ["Id", "Name"], [(1, "one")])
            batch.insert("B", ["Id", "V"], [(1, 1.5)])
        with db.snapshot(multi_use=True) as snap:
            assert list(snap.execute_sql("SELECT Id, Name FROM A")) == [[1, "one"]]
            assert list(snap.execute_sql("SELECT Id, V FROM B")) == [[1, 1.5]]
    finally:
        db.drop()


def test_get_list_and_drop_database(instance: Instance) -> None:
    db = instance.database(unique("db"), ddl_statements=[TABLE_A])
    db.create().result(OPERATION_TIMEOUT_S)
    api = instance._client.database_admin_api
    got = api.get_database(name=db.name)
    assert got.name == db.name
    assert got.state == DatabasePb.State.READY, f"state {got.state}"
    assert db.name in [d.name for d in instance.list_databases()]
    with pytest.raises((gexc.AlreadyExists, gexc.Conflict)):
        instance.database(db.database_id).create().result(OPERATION_TIMEOUT_S)
    db.drop()
    assert not db.exists()
    with pytest.raises(gexc.NotFound):
        api.get_database(name=db.name)
    assert db.name not in [d.name for d in instance.list_databases()]
    with pytest.raises(gexc.NotFound):
        api.get_database_ddl(request=GetDatabaseDdlRequest(database=db.name))


def test_update_database_ddl_operation(instance: Instance) -> None:
    db = instance.database(unique("db"), ddl_statements=[TABLE_A])
    db.create().result(OPERATION_TIMEOUT_S)
    try:
        op = db.update_ddl([TABLE_B, "CREATE INDEX AByName ON A(Name)"])
        op.result(OPERATION_TIMEOUT_S)
        assert isinstance(op.metadata, UpdateDatabaseDdlMetadata), f"metadata type {type(op.metadata)}"
        assert op.metadata.database == db.name
        assert len(op.metadata.statements) == 2
        assert len(op.metadata.commit_timestamps) == 2, "one commit timestamp per applied statement"
        db.reload()
        assert len(db.ddl_statements) == 3, db.ddl_statements
    finally:
        db.drop()


def test_operations_get_and_list(instance: Instance) -> None:
    db = instance.database(unique("db"), ddl_statements=[TABLE_A])
    db.create().result(OPERATION_TIMEOUT_S)
    try:
        op = db.update_ddl([TABLE_B])
        op.result(OPERATION_TIMEOUT_S)
        name = op.operation.name
        assert name.startswith(db.name + "/operations/"), f"operation name {name!r}"
        api = instance._client.database_admin_api
        got = api.get_operation(operations_pb2.GetOperationRequest(name=name))
        assert got.name == name
        assert got.done
        assert got.HasField("response"), "a finished DDL operation carries a response"
        listed = api.list_operations(operations_pb2.ListOperationsRequest(name=db.name + "/operations"))
        assert name in [o.name for o in listed.operations], [o.name for o in listed.operations]
        with pytest.raises(gexc.NotFound):
            api.get_operation(operations_pb2.GetOperationRequest(name=db.name + "/operations/nosuchop"))
    finally:
        db.drop()


# The code and text the official emulator gives (common/errors.cc: SchemaObjectAlreadyExists,
# TableNotFound, ColumnNotFound, and the nonexistent key column's), after the failed statement's name.
@pytest.mark.parametrize(
    "statement, code, reason",
    [
        (
            "CREATE TABLE A (Id INT64 NOT NULL) PRIMARY KEY (Id)",
            gexc.FailedPrecondition,
            "Duplicate name in schema: A.",
        ),
        ("CREATE INDEX Idx ON NoSuchTable(X)", gexc.NotFound, "Table not found: NoSuchTable"),
        ("ALTER TABLE A DROP COLUMN NoSuchColumn", gexc.NotFound, "Column not found in table A: NoSuchColumn"),
        (
            "CREATE TABLE C (Id INT64) PRIMARY KEY (Nope)",
            gexc.FailedPrecondition,
            "Table C references nonexistent key column Nope.",
        ),
    ],
    ids=["duplicate table", "index on missing table", "drop missing column", "bad key"],
)
def test_failing_ddl_fails_its_operation(
    instance: Instance, statement: str, code: type[gexc.GoogleAPICallError], reason: str
) -> None:
    db = instance.database(unique("db"), ddl_statements=[TABLE_A])
    db.create().result(OPERATION_TIMEOUT_S)
    try:
        db.reload()
        before = list(db.ddl_statements)
        op = db.update_ddl([statement])
        with pytest.raises(gexc.GoogleAPICallError) as info:
            op.result(OPERATION_TIMEOUT_S)
        assert type(info.value) is code, f"expected {code.__name__}: {info.value!r}"
        assert info.value.message.endswith(f": {reason}"), f"not Spanner's reason {reason!r}: {info.value}"
        assert f'statement "{statement}"' in info.value.message, (
            f"the failed operation must name the statement: {info.value}"
        )
        db.reload()
        assert list(db.ddl_statements) == before, "a failed statement must not change the schema"
    finally:
        db.drop()


# Cloud Spanner's parser rejects a type it does not know before any operation exists:
# the call fails with INVALID_ARGUMENT, worded (as Spanner answers clients, e.g.
# python-spanner issue 960, python-spanner-django issue 390)
#   Error parsing Spanner DDL statement: <statement> : Syntax error on line L, column C:
#   Encountered '<token>' while parsing: column_type
# with lines and columns counted from 1.
def unknown_type_error(statement: str, token: str) -> str:
    column = statement.index(f" {token}") + 2
    return (
        f"Error parsing Spanner DDL statement: {statement} : Syntax error on line 1, column {column}: "
        f"Encountered '{token}' while parsing: column_type"
    )


def test_unknown_column_type_fails_the_call_and_changes_nothing(instance: Instance) -> None:
    statement = "CREATE TABLE Bad (Id NOSUCHTYPE) PRIMARY KEY (Id)"
    assert unknown_type_error(statement, "NOSUCHTYPE").endswith(
        "column 22: Encountered 'NOSUCHTYPE' while parsing: column_type"
    )
    db = instance.database(unique("db"), ddl_statements=[TABLE_A])
    db.create().result(OPERATION_TIMEOUT_S)
    try:
        db.reload()
        before = list(db.ddl_statements)
        with pytest.raises(gexc.InvalidArgument) as info:
            db.update_ddl([TABLE_B, statement])  # the call itself: no operation to wait on
        assert info.value.message == unknown_type_error(statement, "NOSUCHTYPE"), str(info.value)
        db.reload()
        assert list(db.ddl_statements) == before, "a batch that does not parse must apply none of it"
    finally:
        db.drop()


def test_failing_extra_statement_fails_create_database(instance: Instance) -> None:
    statement = "CREATE TABLE Z (Id BLOB) PRIMARY KEY (Id)"
    db = instance.database(unique("db"), ddl_statements=[TABLE_A, statement])
    with pytest.raises(gexc.InvalidArgument) as info:
        db.create().result(OPERATION_TIMEOUT_S)
    assert info.value.message == unknown_type_error(statement, "BLOB"), str(info.value)
    assert not db.exists(), "a database whose statements do not parse must not be created"


def test_second_instance_is_independent(spanner_client: Client) -> None:
    inst = create_instance(spanner_client, unique("ind"))
    try:
        db = inst.database(unique("db"), ddl_statements=[TABLE_A])
        db.create().result(OPERATION_TIMEOUT_S)
        with db.batch() as batch:
            batch.insert("A", ["Id", "Name"], [(7, "seven")])
        with db.snapshot() as snap:
            assert list(snap.execute_sql("SELECT Name FROM A WHERE Id = 7")) == [["seven"]]
        db.drop()
    finally:
        inst.delete()
