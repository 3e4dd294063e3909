"""Issue 30's "untested" list, the API's part that needs no load: an unknown export format, compare
of runs of different length and of a failed run (stored runs, no Spanner), and a token that every
state-changing request needs (the loadless engine)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from spanload.main import create_app
from spanload.model.samples import Sample
from spanload.model.state import RunState
from tests.api.conftest import local_client, make_settings
from tests.api.loadless_engine import LoadlessEngine
from tests.cli.inprocess import spanload
from tests.helpers import free_port
from tests.store.stored_run import store_finished_run

FAILURE = "the target went away after 5 s"


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, list[Sample]]]]:
    data_dir: Path = tmp_path_factory.mktemp("untested")
    samples = {
        "long": store_finished_run(data_dir, "long", intervals=30),
        "short": store_finished_run(data_dir, "short", intervals=12, seed=3),
        "broken": store_finished_run(data_dir, "broken", intervals=5, seed=4, ended=RunState.FAILED, reason=FAILURE),
    }
    with local_client(create_app(make_settings(data_dir))) as client:
        yield client, samples


def test_an_unknown_export_format_is_a_422_naming_the_field_and_the_formats(
    stored: tuple[TestClient, dict[str, list[Sample]]],
) -> None:
    client, _ = stored
    response = client.get("/api/runs/long/export", params={"format": "bogus"})
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    assert error["loc"] == ["query", "format"] and error["input"] == "bogus"
    assert error["msg"] == "Input should be 'json', 'csv' or 'summary-csv'"


def test_compare_puts_a_shorter_and_a_failed_run_on_the_longest_runs_axis(
    stored: tuple[TestClient, dict[str, list[Sample]]],
) -> None:
    client, samples = stored
    response = client.get("/api/compare", params={"ids": "long,short,broken"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert [(r["id"], r["status"], r["failure_reason"]) for r in body["runs"]] == [
        ("long", "finished", None),
        ("short", "finished", None),
        ("broken", "failed", FAILURE),
    ]
    assert body["series"]["elapsed_s"] == [float(k) for k in range(1, 31)]  # 1 s steps to the longest's end
    by_run = {r["run_id"]: r["values"] for r in body["series"]["runs"]}
    for run_id, written in samples.items():
        # each run's own intervals where it ran, None (not 0, not the last value) after it ended
        assert by_run[run_id]["gauges.updater.tps"] == [s.gauges["updater.tps"] for s in written] + [None] * (
            30 - len(written)
        ), run_id
    transactions = [sum(int(s.gauges["updater.tps"]) for s in written) for written in samples.values()]
    assert [s["totals"]["transactions"] for s in body["summaries"]] == transactions
    tx = next(m for m in body["metrics"] if m["metric"] == "totals.transactions")
    assert tx["values"] == transactions
    assert tx["delta"] == [0.0, transactions[1] - transactions[0], transactions[2] - transactions[0]]


TOKEN = {"Authorization": "Bearer s3cret"}


def test_without_the_token_post_patch_and_delete_get_401_and_change_nothing(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path, api_token="s3cret"), engine_factory=LoadlessEngine)
    with local_client(app) as client:
        created = client.post("/api/runs", json={"preset": "light"}, headers=TOKEN)
        assert created.status_code == 201, created.text
        run_id = created.json()["id"]
        before = client.get(f"/api/runs/{run_id}", headers=TOKEN).json()
        assert before["status"] == "running"

        refused = [
            client.post("/api/runs", json={"preset": "light"}),
            client.patch(f"/api/runs/{run_id}", json={"notes": "not yours"}),
            client.patch(f"/api/runs/{run_id}/config", json={"updater": {"transactions_per_second": 9}}),
            client.post(f"/api/runs/{run_id}/pause"),
            client.post(f"/api/runs/{run_id}/stop"),
            client.delete(f"/api/runs/{run_id}", headers={"Authorization": "Bearer wrong"}),
        ]
        assert [(r.status_code, r.json()["detail"]) for r in refused] == [
            (401, "missing or wrong API token: send 'Authorization: Bearer <SPANLOAD_API_TOKEN>'")
        ] * len(refused)
        after = client.get(f"/api/runs/{run_id}", headers=TOKEN).json()
        assert client.get("/api/runs", headers=TOKEN).json()["count"] == 1
        unchanged = ("status", "notes", "config")
        assert [after[k] for k in unchanged] == [before[k] for k in unchanged]

        # the same requests with the token do what was refused: the refusals above were not no-ops anyway
        assert client.post(f"/api/runs/{run_id}/stop", headers=TOKEN).status_code == 200
        assert client.delete(f"/api/runs/{run_id}").status_code == 401
        assert client.get(f"/api/runs/{run_id}", headers=TOKEN).status_code == 200
        assert client.delete(f"/api/runs/{run_id}", headers=TOKEN).status_code == 204
        assert client.get(f"/api/runs/{run_id}", headers=TOKEN).status_code == 404


def test_serve_on_every_address_without_a_token_exits_2_with_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def started(*args: object, **kwargs: object) -> None:
        raise AssertionError("serve started a server on 0.0.0.0 without a token")

    monkeypatch.setattr("uvicorn.run", started)  # in-process: fail instead of serving (serve imports it late)
    monkeypatch.delenv("SPANLOAD_API_TOKEN", raising=False)
    done = spanload(tmp_path, "serve", "--host", "0.0.0.0", "--port", str(free_port()), "--no-local-spanner")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "spanload serve: binding 0.0.0.0 exposes the API beyond this machine; "
        "set SPANLOAD_API_TOKEN to require a token.\n"
    )
