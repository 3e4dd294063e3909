"""`spanload runs list|show|export|compare|delete` and `spanload report` on the run store directly
(SPANLOAD_DATA_DIR), on stored runs: what CI uses to fetch and gate results."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from spanload.model.samples import Sample
from tests.cli.inprocess import spanload
from tests.helpers import VENV_BIN
from tests.store.stored_run import store_finished_run


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Sample]]:
    data_dir = tmp_path_factory.mktemp("runs-cli")
    samples = store_finished_run(data_dir, "cli-a", seed=7)
    store_finished_run(data_dir, "cli-b", seed=8, intervals=30)
    return data_dir, samples


def test_list_show_export_and_compare_answer_the_stored_runs(stored: tuple[Path, list[Sample]]) -> None:
    data_dir, samples = stored
    listed = spanload(data_dir, "runs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    page = json.loads(listed.stdout)
    assert page["count"] == 2 and sorted(r["id"] for r in page["data"]) == ["cli-a", "cli-b"]

    shown = json.loads(spanload(data_dir, "runs", "show", "cli-a", "--json").stdout)
    assert shown["status"] == "finished" and shown["sample_count"] == len(samples)
    assert shown["summary"]["totals"]["transactions"] == samples[-1].totals.transactions
    assert shown["live_changes"][0]["field"] == "updater.transactions_per_second"

    out = data_dir / "a.csv"
    exported = spanload(data_dir, "runs", "export", "cli-a", "--format", "csv", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[0][:3] == ["seq [index]", "t [unix s]", "elapsed [ms]"] and len(rows) == 1 + len(samples)
    column = rows[0].index("totals.transactions [count]")
    assert [int(r[column]) for r in rows[1:]] == [s.totals.transactions for s in samples]

    compared = json.loads(spanload(data_dir, "runs", "compare", "cli-a", "cli-b", "--json").stdout)
    assert [r["id"] for r in compared["runs"]] == ["cli-a", "cli-b"]
    tps = next(m for m in compared["metrics"] if m["metric"] == "totals.transactions")
    assert tps["values"][0] == samples[-1].totals.transactions

    lines = spanload(data_dir, "runs", "list").stdout.splitlines()
    rows = {line.split()[0]: line.split()[1] for line in lines if line.strip().startswith("cli-")}
    assert rows == {"cli-a": "finished", "cli-b": "finished"}  # the table, one row per run
    table = spanload(data_dir, "runs", "compare", "cli-a", "cli-b").stdout
    assert "cli-a (baseline)" in table and "rates.updater.tps" in table

    text = spanload(data_dir, "runs", "show", "cli-a")
    assert text.stdout.startswith("run cli-a: stored cli-a (finished)")
    assert "updater.txn" in text.stdout  # the summary table


def test_report_writes_the_html_file(stored: tuple[Path, list[Sample]], tmp_path: Path) -> None:
    data_dir, _ = stored
    one, two = tmp_path / "one.html", tmp_path / "two.html"
    assert spanload(data_dir, "report", "cli-a", "-o", str(one)).returncode == 0
    assert spanload(data_dir, "report", "cli-a", "cli-b", "-o", str(two)).returncode == 0
    assert "<title>Spanload run stored cli-a</title>" in one.read_text()
    assert "<title>Spanload comparison of 2 runs</title>" in two.read_text()


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["runs", "show", "nope"], 1, "no run 'nope'"),
        (["runs", "compare", "cli-a"], 2, "compare takes 2 to 6 run ids (got 1)"),
        (["runs", "export", "cli-a", "--format", "xml"], 2, "invalid choice: 'xml'"),
        (["runs", "list", "--server", "http://127.0.0.1:1"], 1, "could not reach spanload serve at http://127.0.0.1:1"),
        (["runs", "list", "--server", "localhost:8000"], 2, "is not a URL"),
        (["report", "nope", "-o", "/tmp/x.html"], 1, "no run nope"),
    ],
)
def test_bad_requests_exit_with_their_code_and_one_sentence(
    stored: tuple[Path, list[Sample]], args: list[str], code: int, says: str
) -> None:
    result = spanload(stored[0], *args)
    assert result.returncode == code, result.stderr
    assert says in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_installed_command_lists_the_store_as_json(stored: tuple[Path, list[Sample]]) -> None:
    result = subprocess.run(
        [str(VENV_BIN / "spanload"), "runs", "list", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "SPANLOAD_DATA_DIR": str(stored[0])},
    )
    assert result.returncode == 0, result.stderr
    assert sorted(r["id"] for r in json.loads(result.stdout)["data"]) == ["cli-a", "cli-b"]


def test_delete_removes_a_run(tmp_path: Path) -> None:
    store_finished_run(tmp_path, "doomed", intervals=5)
    deleted = spanload(tmp_path, "runs", "delete", "doomed", "--json")
    assert deleted.returncode == 0 and json.loads(deleted.stdout) == {"deleted": "doomed"}
    assert spanload(tmp_path, "runs", "show", "doomed").returncode == 1
    assert json.loads(spanload(tmp_path, "runs", "list", "--json").stdout)["count"] == 0
