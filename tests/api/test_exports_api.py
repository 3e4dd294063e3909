"""GET /api/runs/{id}/export of a stored run: the CSV's cells against the samples as they were
written, each header's unit, the summary CSV, and the JSON's histogram rollups decoded with the
HdrHistogram library and counted against the samples."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hdrh.histogram import HdrHistogram

from spanload.main import create_app
from spanload.model.samples import Sample
from tests.api.conftest import local_client, make_settings
from tests.store.stored_run import STARTED_AT, store_finished_run

RUN = "export-run"
HEADER = re.compile(r"^(?P<name>[^\[\]]+) \[(?P<unit>[^\[\]]+)\]$")


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, list[Sample]]]:
    data_dir: Path = tmp_path_factory.mktemp("exports")
    samples = store_finished_run(data_dir, RUN)
    with local_client(create_app(make_settings(data_dir))) as client:
        yield client, samples


def _csv(client: TestClient, fmt: str) -> list[list[str]]:
    response = client.get(f"/api/runs/{RUN}/export", params={"format": fmt})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(response.text)))


def _expected(sample: Sample, name: str) -> float | None:
    """A column's value from the sample, in the export's units (durations ms), worked out here."""
    match name.split("."):
        case ["seq"]:
            return sample.seq
        case ["t"]:
            return sample.t
        case ["elapsed"]:
            return sample.elapsed_s * 1000
        case ["interval"]:
            return sample.interval_s * 1000
        case ["latency", *op, field]:
            p = sample.latency.get(".".join(op))
            return None if p is None else getattr(p, field)
        case ["gauges", *gauge]:
            key = ".".join(gauge)
            if key + "_s" in sample.gauges:
                return sample.gauges[key + "_s"] * 1000
            return sample.gauges.get(key + "_ms", sample.gauges.get(key))
        case ["totals", field]:
            return getattr(sample.totals, field)
        case ["errors", code]:
            return sample.errors_by_code.get(code)
    raise AssertionError(f"unexpected column {name!r}")


def test_every_csv_cell_is_the_stored_samples_value_in_the_headers_unit(
    stored: tuple[TestClient, list[Sample]],
) -> None:
    client, samples = stored
    table = _csv(client, "csv")
    header, rows = table[0], table[1:]
    assert header[:4] == ["seq [index]", "t [unix s]", "elapsed [ms]", "interval [ms]"]
    parsed = [HEADER.match(h) for h in header]
    assert all(parsed), [h for h, m in zip(header, parsed, strict=True) if m is None]
    units = {m["name"]: m["unit"] for m in parsed if m}
    # one unit per quantity: no duration left in seconds, none with its unit still in the name
    assert units["gauges.server.commit_latency"] == "ms" and units["gauges.watcher.lag"] == "ms"
    assert units["latency.updater.txn.p99"] == "ms" and units["latency.updater.txn.count"] == "count"
    assert units["gauges.updater.tps"] == "/s" and units["totals.transactions"] == "count"
    assert not [n for n in units if n.endswith(("_s", "_ms"))]
    assert len(rows) == len(samples) == 75
    checked = 0
    for sample, row in zip(samples, rows, strict=True):
        for m, cell in zip(parsed, row, strict=True):
            assert m is not None
            want = _expected(sample, m["name"])
            assert (cell == "") == (want is None), (sample.seq, m["name"], cell)
            if want is not None:
                assert float(cell) == want, (sample.seq, m["name"], cell, want)
                checked += 1
    assert checked == len(samples) * (len(header))  # every cell of these samples has a value


def test_the_summary_csv_holds_the_whole_run_figures_with_units(stored: tuple[TestClient, list[Sample]]) -> None:
    client, samples = stored
    table = _csv(client, "summary-csv")
    assert table[0] == ["name", "value", "unit"]
    figures = {name: (value, unit) for name, value, unit in table[1:]}
    summary = client.get(f"/api/runs/{RUN}").json()["summary"]
    assert figures["run.id"] == (RUN, "") and figures["run.status"] == ("finished", "")
    assert figures["run.started_at"] == (str(int(STARTED_AT)), "unix s")
    assert figures["run.duration"] == ("75000", "ms")
    txns = sum(int(s.gauges["updater.tps"]) for s in samples)  # 1 s intervals: tx/s is the count
    assert figures["totals.transactions"] == (str(txns), "count")
    assert figures["latency.updater.txn.count"] == (str(txns), "count")
    assert float(figures["latency.updater.txn.p99"][0]) == summary["latency"]["updater.txn"]["p99"]
    assert figures["latency.updater.txn.p99"][1] == "ms"
    mean_commit_s = sum(s.gauges["server.commit_latency_s"] for s in samples) / len(samples)
    value, unit = figures["rates.server.commit_latency"]
    assert unit == "ms" and float(value) == pytest.approx(mean_commit_s * 1000, rel=1e-12)
    assert figures["rates.updater.tps"][1] == "/s"
    disposition = client.get(f"/api/runs/{RUN}/export", params={"format": "summary-csv"}).headers
    assert disposition["content-disposition"] == f'attachment; filename="spanload-{RUN}-summary.csv"'


def test_the_json_exports_histogram_rollups_decode_to_the_samples_counts(
    stored: tuple[TestClient, list[Sample]],
) -> None:
    client, samples = stored
    body = client.get(f"/api/runs/{RUN}/export").json()
    rollups = body["hdr_rollups"]
    assert [(r["first_seq"], r["last_seq"]) for r in rollups] == [(0, 59), (60, 74)]
    assert all(s["hdr"] == {} for s in body["samples"])  # every interval rolled up at the end
    for rollup in rollups:
        block = samples[rollup["first_seq"] : rollup["last_seq"] + 1]
        assert set(rollup["hdr"]) == set(block[0].latency)
        for op, text in rollup["hdr"].items():
            histogram = HdrHistogram.decode(text.encode())
            assert histogram.get_total_count() == sum(s.latency[op].count for s in block), op
            assert histogram.get_max_value() >= max(s.latency[op].max or 0 for s in block) * 1000 * 0.999
