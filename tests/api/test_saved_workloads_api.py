"""Saved workload definitions (issue 26): versions in the run store, listed beside the built-ins,
served as saved; a bad source is a 422 naming the field. No load and no Spanner: the loadless app,
over SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from spanload.main import create_app
from spanload.store.definitions import save_definition
from spanload.store.models import RunRow
from tests.api.conftest import local_client, make_settings
from tests.api.loadless_engine import LoadlessEngine
from tests.store.conftest import postgres_server  # noqa: F401  (the fixture)

SHOP = (Path(__file__).parents[2] / "workloads" / "shop.yaml").read_text()
MINE = SHOP.replace("name: shop", "name: my_shop", 1)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    database_url = None
    if request.param == "postgresql":
        database_url = request.getfixturevalue("postgres_server").create_database()
    app = create_app(make_settings(tmp_path, database_url=database_url), engine_factory=LoadlessEngine)
    with local_client(app) as test_client:
        yield test_client


def test_saves_are_versions_and_an_identical_source_is_not_a_new_one(client: TestClient) -> None:
    first = client.post("/api/workloads/saved", json={"source": MINE})
    assert first.status_code == 201, first.text
    assert first.json() | {"saved_at": 0, "definition": None} == {
        "name": "my_shop",
        "version": 1,
        "versions": 1,
        "created": True,
        "saved_at": 0,
        "source": MINE,
        "definition": None,
    }
    again = client.post("/api/workloads/saved", json={"source": MINE}).json()
    assert (again["version"], again["versions"], again["created"]) == (1, 1, False)
    edited = MINE.replace("Orders", "Purchases")
    second = client.post("/api/workloads/saved", json={"source": edited}).json()
    assert (second["version"], second["versions"], second["created"]) == (2, 2, True)

    assert client.get("/api/workloads/saved/my_shop").json()["source"] == edited
    old = client.get("/api/workloads/saved/my_shop/1").json()
    assert (old["source"], old["version"], old["versions"]) == (MINE, 1, 2)
    missing = client.get("/api/workloads/saved/my_shop/3")
    assert missing.status_code == 404 and missing.json()["field"] == "version"
    assert client.get("/api/workloads/saved/nobody").status_code == 404


def test_the_list_holds_the_built_ins_then_the_saved_at_their_latest_version(client: TestClient) -> None:
    client.post("/api/workloads/saved", json={"source": MINE})
    client.post("/api/workloads/saved", json={"source": MINE + "# a comment makes another version\n"})
    listed = client.get("/api/workloads").json()
    by_name = {w["name"]: w for w in listed["data"]}
    assert by_name["shop"]["origin"] == "builtin" and by_name["shop"]["version"] is None
    mine = by_name["my_shop"]
    assert (mine["origin"], mine["version"], mine["versions"]) == ("saved", 2, 2)
    assert mine["operations"] == ["place_order", "recent_orders"]
    assert listed["data"][-1]["name"] == "my_shop" and listed["count"] == len(listed["data"])


def test_a_bad_source_is_a_422_naming_the_field_and_saves_nothing(client: TestClient) -> None:
    broken = MINE.replace("rate: $order_rate", "rate: fast", 1)
    assert broken != MINE
    response = client.post("/api/workloads/saved", json={"source": broken})
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["field"].startswith("operations.place_order.rate"), body
    assert body["problems"][0]["line"] is not None
    syntax = client.post("/api/workloads/saved", json={"source": "name: [unclosed"})
    assert syntax.status_code == 422 and syntax.json()["field"] == "source"
    assert client.get("/api/workloads/saved/my_shop").status_code == 404


def test_a_built_in_name_cannot_be_saved_over(client: TestClient) -> None:
    response = client.post("/api/workloads/saved", json={"source": SHOP})
    assert response.status_code == 409 and response.json()["field"] == "name"


def test_a_saved_source_the_format_no_longer_accepts_is_still_listed_and_served(client: TestClient) -> None:
    stale = MINE.replace("name: my_shop", "name: my_shop\nretired_field: 1", 1)
    with client.app.state.sessions() as session:  # type: ignore[attr-defined]
        save_definition(session, "my_shop", stale)
    listed = {w["name"]: w for w in client.get("/api/workloads").json()["data"]}
    assert listed["my_shop"]["description"].startswith("no longer valid")
    served = client.get("/api/workloads/saved/my_shop")
    assert served.status_code == 200 and served.json()["source"] == stale and served.json()["definition"] is None


def _save_two_versions(client: TestClient) -> str:
    """my_shop version 1 (table Orders) and version 2 (table Purchases); gives version 2's source."""
    edited = MINE.replace("Orders", "Purchases")
    assert client.post("/api/workloads/saved", json={"source": MINE}).json()["version"] == 1
    assert client.post("/api/workloads/saved", json={"source": edited}).json()["version"] == 2
    return edited


def _tables(config: dict[str, object]) -> list[str]:
    definition = config["definition"]
    assert isinstance(definition, dict)
    return [t.split("(")[0].split()[-1] for t in definition["ddl"]]


def test_a_run_from_a_saved_version_keeps_its_name_and_version(client: TestClient) -> None:
    _save_two_versions(client)
    body = {"definition_name": "my_shop", "definition_version": 2, "overrides": {"duration_s": 5}}
    created = client.post("/api/runs", json=body)
    assert created.status_code == 201, created.text
    run = client.get(f"/api/runs/{created.json()['id']}").json()
    assert run["config"]["definition_origin"] == {"source": "saved", "definition": "my_shop", "saved_version": 2}
    assert run["config"]["workload"] == "definition" and "Purchases" in _tables(run["config"])
    exported = client.get(f"/api/runs/{run['id']}/export").json()
    assert exported["run"]["config"]["definition_origin"] == {
        "source": "saved",
        "definition": "my_shop",
        "saved_version": 2,
    }

    first = client.post("/api/runs", json={"definition_name": "my_shop", "definition_version": 1}).json()
    assert first["config"]["definition_origin"]["saved_version"] == 1 and "Orders" in _tables(first["config"])
    latest = client.post("/api/runs", json={"definition_name": "my_shop"}).json()
    assert latest["config"]["definition_origin"] == {"source": "saved", "definition": "my_shop", "saved_version": 2}
    builtin = client.post("/api/runs", json={"definition_name": "shop"}).json()
    assert builtin["config"]["definition_origin"] == {"source": "builtin", "definition": "shop", "saved_version": None}


def test_a_missing_version_or_a_version_of_a_built_in_names_the_field(client: TestClient) -> None:
    _save_two_versions(client)
    missing = client.post("/api/runs", json={"definition_name": "my_shop", "definition_version": 3})
    assert missing.status_code == 404 and missing.json()["field"] == "definition_version", missing.text
    assert missing.json()["detail"] == "no version 3 of saved definition 'my_shop': it has versions 1 to 2"
    builtin = client.post("/api/runs", json={"definition_name": "shop", "definition_version": 1})
    assert builtin.status_code == 422 and builtin.json()["field"] == "definition_version", builtin.text
    nobody = client.post("/api/runs", json={"definition_name": "nobody"})
    assert nobody.status_code == 404 and nobody.json()["field"] == "definition_name", nobody.text
    alone = client.post("/api/runs", json={"definition_version": 1})
    assert alone.status_code == 422 and alone.json()["field"] == "definition_version", alone.text
    lying = {
        "definition_name": "my_shop",
        "overrides": {"definition_origin": {"source": "saved", "definition": "x", "saved_version": 1}},
    }
    refused = client.post("/api/runs", json=lying)
    assert refused.status_code == 422 and refused.json()["field"] == "definition_origin.definition", refused.text
    assert client.get("/api/runs").json()["count"] == 0


def test_a_run_stored_before_definition_origin_still_loads(client: TestClient) -> None:
    created = client.post("/api/runs", json={"definition_name": "shop"}).json()
    with client.app.state.sessions() as session:  # type: ignore[attr-defined]
        row = session.get(RunRow, created["id"])
        old = {k: v for k, v in row.config.items() if k != "definition_origin"}
        row.config, row.current_config = old, dict(old)
        session.commit()
    run = client.get(f"/api/runs/{created['id']}")
    assert run.status_code == 200, run.text
    assert run.json()["config"]["definition_origin"] is None and run.json()["config"]["definition"]["name"] == "shop"
    assert client.get(f"/api/runs/{created['id']}/export").status_code == 200
