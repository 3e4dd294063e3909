"""Schemathesis against the OpenAPI schema: no request, however odd, gets a 5xx.

The app is the real one (real store, hub, routes) except for the load engine: fuzzed configs may ask
for 100,000 tx/s with 512 threads, so runs here are driven by
:class:`~tests.api.loadless_engine.LoadlessEngine`, a stand-in that puts no load on anything.
Spanner behaviour is tested elsewhere, with the real Supervisor and local Spanner."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spanload.main import create_app
from tests.api.conftest import make_settings
from tests.api.loadless_engine import LoadlessEngine
from tests.store.conftest import postgres_server  # noqa: F401  (the fixture)

MAX_EXAMPLES = 40


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[schemathesis.BaseSchema, list[str]]]:
    """The schema over a SQLite or a PostgreSQL run store, and the ids of runs that exist (one
    running, one finished) for half the cases."""
    data_dir: Path = tmp_path_factory.mktemp("fuzz")
    database_url = None
    if request.param == "postgresql":
        database_url = request.getfixturevalue("postgres_server").create_database()
    # Schemathesis' in-process client calls the app 'testserver': allowed as a reverse proxy's name would be.
    settings = make_settings(data_dir, database_url=database_url, allowed_hosts=["testserver"])
    app = create_app(settings, engine_factory=LoadlessEngine)
    with TestClient(app) as client:  # runs the lifespan: migrations, store, hub
        running = client.post("/api/runs", json={"preset": "light"}).json()["id"]
        finished = client.post("/api/runs", json={"preset": "light"}).json()["id"]
        client.post(f"/api/runs/{finished}/stop")
        yield schemathesis.openapi.from_asgi("/openapi.json", app), [running, finished]


def test_no_request_gets_a_server_error(api: tuple[schemathesis.BaseSchema, list[str]]) -> None:
    """Every operation, MAX_EXAMPLES generated requests each (schemathesis' pytest plugin does not
    load under pytest 9, so the operations are driven through hypothesis directly)."""
    api_schema, run_ids = api
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 14
    failures: list[str] = []
    statuses: Counter[int] = Counter()
    for operation in operations:
        documents_503 = "503" in operation.definition.raw.get("responses", {})

        @given(case=operation.as_strategy(), real_run=st.sampled_from([None, *run_ids]))
        @settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def no_server_error(case: schemathesis.Case, real_run: str | None) -> None:
            if real_run is not None and case.path_parameters and "run_id" in case.path_parameters:
                case.path_parameters["run_id"] = real_run
            response = case.call()
            statuses[response.status_code // 100 * 100] += 1
            if response.status_code >= 500:
                # A 503 the operation documents, with its sentence, is the honest answer when the
                # target cannot be reached (no Spanner runs here); any other 5xx is a crash.
                try:
                    detail = response.json().get("detail")
                except ValueError:
                    detail = None
                documented = documents_503  # noqa: B023 (the function is called in this iteration)
                sentence = isinstance(detail, str) and bool(detail)
                assert response.status_code == 503 and documented and sentence, (
                    f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:300]}"
                )

        try:
            no_server_error()
        except Exception as err:
            failures.append(f"{operation.label}: {err}")
    assert not failures, "\n\n".join(failures)
    print(f"\nschemathesis: {sum(statuses.values())} requests, by status class: {dict(statuses)}")
    assert statuses[200] and statuses[400]  # both the happy and the refusing paths were exercised
