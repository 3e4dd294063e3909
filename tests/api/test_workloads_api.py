"""/api/workloads: the built-in definitions, the schema, validation with placed problems, and the
consent rule for DDL on a database that holds other tables (issue 22)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from google.cloud.spanner_v1 import Client

from spanload.model.builtin_convert import builtin_definition
from spanload.model.config import Target, TargetKind
from spanload.model.workload_file import parse_definition
from spanload.spanner.client import make_client
from spanload.spanner.local_server import LocalSpanner
from spanload.spanner.schemas import ensure_ddl
from tests.api.conftest import wait_run

SHOP = (Path(__file__).parents[2] / "workloads" / "shop.yaml").read_text()


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_the_built_in_definitions_are_listed_and_served_as_written(client: TestClient) -> None:
    listed = client.get("/api/workloads").json()
    assert "shop" in [w["name"] for w in listed["data"]] and listed["count"] == len(listed["data"])
    # each built-in report workload and the shop beside its PostgreSQL twin (issue 24)
    dialects = {w["name"]: w["dialect"] for w in listed["data"] if w.get("origin", "builtin") == "builtin"}
    for name in ["change_watcher", "participants", "session_pool", "shop", "write_benchmark"]:
        assert (dialects[name], dialects[f"{name}_pg"]) == ("googlesql", "postgresql"), name
    shop = client.get("/api/workloads/shop").json()
    assert shop["source"] == SHOP
    assert list(shop["definition"]["operations"]) == ["place_order", "recent_orders"]
    missing = client.get("/api/workloads/nope")
    assert missing.status_code == 404 and "built-in: " in missing.json()["detail"]


def test_the_schema_is_the_definitions_json_schema(client: TestClient) -> None:
    schema = client.get("/api/workloads/schema").json()
    assert schema["title"] == "WorkloadDefinition"
    assert set(schema["required"]) == {"name", "operations"}


def test_a_valid_definition_is_valid_offline(client: TestClient) -> None:
    response = client.post("/api/workloads/validate", json={"source": SHOP})
    assert response.status_code == 200, response.text
    assert response.json() == {
        "valid": True,
        "name": "shop",
        "creates": ["TABLE Customers", "TABLE Orders"],
        "scratch": True,
        "problems": [],
        "dry_run": None,
    }


def test_problems_come_back_as_a_422_list_placed_on_their_lines(client: TestClient) -> None:
    broken = SHOP.replace("ORDER BY Created DESC", "ORDER BY Createdd DESC").replace(
        "Amount: $amount, Created", "Amount: $customer, Created"
    )
    response = client.post("/api/workloads/validate", json={"source": broken})
    assert response.status_code == 422, response.text
    problems = {p["path"]: p for p in response.json()["problems"]}
    assert set(problems) == {
        "operations.place_order.steps.1.insert.columns.Amount",
        "operations.recent_orders.steps.0.sql",
    }
    amount = problems["operations.place_order.steps.1.insert.columns.Amount"]
    assert amount["message"] == "Orders.Amount is NUMERIC, but this value is INT64"
    assert amount["line"] == _line_of(broken, "Amount: $customer")
    sql = problems["operations.recent_orders.steps.0.sql"]
    # Spanner's own analysis (PLAN mode) of the statement, placed on the file's line
    assert sql["message"].startswith("INVALID_ARGUMENT: Unrecognized name: Createdd")
    assert sql["line"] == _line_of(broken, "ORDER BY Createdd")


def test_a_parameter_fed_by_a_generator_of_another_type_is_spanners_type_error(client: TestClient) -> None:
    broken = SHOP.replace("WHERE CustomerId = @customer\n        bind", "WHERE CustomerId = @order_id\n        bind")
    response = client.post("/api/workloads/validate", json={"source": broken})
    assert response.status_code == 422, response.text
    [problem] = response.json()["problems"]
    assert problem["path"] == "operations.place_order.steps.0.sql"
    assert problem["message"].startswith(
        "INVALID_ARGUMENT: No matching signature for operator = for argument types: INT64, STRING"
    )


def test_a_yaml_syntax_error_and_an_unknown_generator_are_placed(client: TestClient) -> None:
    syntax = client.post("/api/workloads/validate", json={"source": "name: x\noperations: [1, 2\n"})
    assert syntax.status_code == 422
    assert [(p["line"], p["column"]) for p in syntax.json()["problems"]] == [(3, 1)]
    unknown = client.post("/api/workloads/validate", json={"source": SHOP.replace("{zipf:", "{zipff:")})
    assert unknown.status_code == 422
    [problem] = unknown.json()["problems"]
    assert (problem["path"], problem["line"]) == ("values.customer", _line_of(SHOP, "customer: {zipf"))
    assert unknown.json()["field"] == "values.customer"


def test_a_missing_table_and_a_bad_knob_bound(client: TestClient) -> None:
    no_table = SHOP.replace("insert: {table: Orders", "insert: {table: Orderz")
    [problem] = client.post("/api/workloads/validate", json={"source": no_table}).json()["problems"]
    assert problem["path"] == "operations.place_order.steps.1.insert.table"
    assert problem["message"] == "table Orderz does not exist (tables: Customers, Orders)"
    bad_bound = SHOP.replace("min: 1, max: 100, help: order lines", "min: 100, max: 1, help: order lines")
    [bound] = client.post("/api/workloads/validate", json={"source": bad_bound}).json()["problems"]
    assert (bound["path"], bound["message"]) == ("knobs.max_items", "min (100) is above max (1)")


def _foreign_database(address: str) -> str:
    """A database of the local Spanner that holds a table of somebody else's."""
    name = f"own-{uuid.uuid4().hex[:10]}"
    target = Target(kind=TargetKind.EMULATOR, emulator_host=address, database=name)
    client: Client = make_client(target, address)
    try:
        ensure_ddl(client, target, ["CREATE TABLE Theirs (Id INT64 NOT NULL) PRIMARY KEY (Id)"], "theirs")
    finally:
        client.close()
    return name


def test_no_ddl_on_a_database_with_other_tables_without_consent(
    client: TestClient, local_spanner: LocalSpanner
) -> None:
    database = _foreign_database(local_spanner.address)
    target: dict[str, Any] = {"kind": "emulator", "emulator_host": local_spanner.address, "database": database}
    body = {"definition_name": "shop", "overrides": {"target": target, "duration_s": 1}}
    refused = client.post("/api/runs", json=body)
    assert refused.status_code == 422, refused.text
    assert refused.json()["field"] == "create_schema"
    assert refused.json()["detail"] == (
        f"database {database!r} holds other tables (Theirs); the run would create TABLE Customers, TABLE Orders "
        "in it. Pass --create-schema (create_schema: true), or confirm in the UI, to create them"
    )
    runs = client.get("/api/runs").json()["data"]
    assert [r["id"] for r in runs if r["config"]["target"]["database"] == database] == []  # no run is left
    admin = make_client(Target(kind=TargetKind.EMULATOR, emulator_host=local_spanner.address), local_spanner.address)
    try:
        db = admin.instance("spanload").database(database)
        db.reload()
        assert [s.split("(")[0].strip() for s in db.ddl_statements] == ["CREATE TABLE Theirs"]
    finally:
        admin.close()


TELEMETRY = (Path(__file__).parents[1] / "fixtures" / "telemetry.yaml").read_text()


def test_a_users_own_schema_validates_and_a_bound_column_is_typed_from_the_table(client: TestClient) -> None:
    """A definition for a schema the project never saw: batch_write, closed loop, a read by key whose
    bound column feeds a later statement. Then the same file with three mistakes."""
    ok = client.post("/api/workloads/validate", json={"source": TELEMETRY})
    assert ok.status_code == 200, ok.text
    assert ok.json()["creates"] == ["TABLE Devices", "TABLE Readings", "INDEX ReadingsBySiteless"]
    broken = (
        TELEMETRY.replace("WHERE Site = @site", "WHERE DeviceId = @site")
        .replace("Celsius: {float: {min: -20, max: 45}}", "Celsius: {uniform: {min: 1, max: 3}}")
        .replace("Taken: now", "Taken: now\n            Takn: now")
    )
    problems = client.post("/api/workloads/validate", json={"source": broken}).json()["problems"]
    assert [(p["path"], p["message"]) for p in problems] == [
        ("operations.report.steps.0.insert.columns.Celsius", "Readings.Celsius is FLOAT64, but this value is INT64"),
        (
            "operations.report.steps.0.insert.columns.Takn",
            "column Takn does not exist in Readings (DeviceId, ReadingId, Celsius, Battery, Taken, Stored)",
        ),
        (
            "operations.site_census.steps.2.sql",
            "INVALID_ARGUMENT: No matching signature for operator = for argument types: INT64, STRING [at 1:44]",
        ),
    ]
    assert problems[2]["line"] == _line_of(broken, "SELECT COUNT(*) AS same")


INVENTORY = (Path(__file__).parents[2] / "workloads" / "inventory.yaml").read_text()


def test_a_dry_run_executes_each_operation_once_and_rolls_its_writes_back(
    client: TestClient, local_spanner: LocalSpanner
) -> None:
    address = local_spanner.address
    database = f"dry-{uuid.uuid4().hex[:10]}"
    target = Target(kind=TargetKind.LOCAL, emulator_host=address, database=database)
    admin: Client = make_client(target, address)
    try:
        definition = parse_definition(INVENTORY)
        db = ensure_ddl(admin, target, definition.ddl, "inventory")
        with db.batch() as batch:
            batch.insert("Stock", ("StockId", "Quantity"), [(i, 7) for i in range(1, 401)])
        body = {
            "source": INVENTORY,
            "target": {"kind": "local", "emulator_host": address, "database": database},
            "dry_run": True,
            "knobs": {"audit_rows": 3},
        }
        response = client.post("/api/workloads/validate", json=body)
        assert response.status_code == 200, response.text
        ran = {r["operation"]: r for r in response.json()["dry_run"]}
        assert list(ran) == ["transfer", "stock_report", "price", "audit", "sweep"]
        assert all(r["ok"] for r in ran.values()), [r["error"] for r in ran.values()]
        transfer = ran["transfer"]
        assert transfer["rolled_back"] is True
        assert [(s["kind"], s["row_count"]) for s in transfer["steps"]] == [
            ("sql", 1), ("sql", 1), ("sql", 1), ("insert", 1),
        ]  # fmt: skip
        assert transfer["steps"][0]["rows"] == [["7"]]  # every Stock row holds 7 (INT64 in JSON: a string)
        assert [s["row_count"] for s in ran["audit"]["steps"]] == [3]  # the knob given for the dry run
        assert ran["stock_report"]["rolled_back"] is False
        report = ran["stock_report"]["steps"][0]  # a 1 s stale read: whether it sees the rows depends on the clock
        assert (report["columns"], report["row_count"]) == (["Units"], 1)
        with db.snapshot(multi_use=True) as snap:  # nothing was committed
            movements = list(snap.execute_sql("SELECT COUNT(*) FROM Movements"))
            audits = list(snap.execute_sql("SELECT COUNT(*) FROM Audits"))
            units = list(snap.execute_sql("SELECT SUM(Quantity) FROM Stock"))
        assert (movements, audits, units) == ([[0]], [[0]], [[400 * 7]])
    finally:
        admin.close()


def test_a_database_holding_only_spanloads_own_tables_needs_no_consent(
    client: TestClient, local_spanner: LocalSpanner
) -> None:
    """Spanload's built-in tables are not someone else's: a definition may add its tables beside them."""
    name = f"ours-{uuid.uuid4().hex[:10]}"
    target = Target(kind=TargetKind.EMULATOR, emulator_host=local_spanner.address, database=name)
    admin: Client = make_client(target, local_spanner.address)
    try:
        ensure_ddl(admin, target, builtin_definition("change_watcher").ddl, "change_watcher")
    finally:
        admin.close()
    body = {
        "definition_name": "shop",
        "overrides": {"target": target.model_dump(mode="json"), "duration_s": 1, "knobs": {"customers": 10}},
    }
    created = client.post("/api/runs", json=body)
    assert created.status_code == 201, created.text
    wait_run(client, created.json()["id"], lambda r: r["status"] == "finished", "the run to finish")
