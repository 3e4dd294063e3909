"""GET /api/runs/{id}/report and /api/compare/report on stored runs: one self-contained HTML file
that holds the run's charts, summary, breakdown, timeline, notes and config diff."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from spanload.main import create_app
from spanload.model.capacity import CapacityResult, CapacityStep, Limit
from spanload.model.samples import Sample, Summary
from spanload.store import runs as run_store
from spanload.store.db import make_engine, make_sessionmaker
from tests.api.conftest import local_client, make_settings
from tests.reports.expected import RUN_CHARTS
from tests.store.stored_run import store_finished_run, store_url

CAPACITY = CapacityResult(
    knee=200.0,
    limited_by=Limit.DATABASE,
    broke_by=["p99 41 ms is above 25 ms"],
    steps=[
        CapacityStep(rate=100, achieved=99.5, p50=3.0, p95=6.0, p99=9.0, seconds=10, stable=True, held=True),
        CapacityStep(rate=200, achieved=198.0, p50=4.0, p95=9.0, p99=14.0, seconds=10, stable=True, held=True),
        CapacityStep(rate=300, achieved=240.0, p50=9.0, p95=30.0, p99=41.0, seconds=10, stable=True, held=False),
    ],
)


class Charts(HTMLParser):
    """figure id -> the labels of its path.series, and each path's number of points."""

    def __init__(self) -> None:
        super().__init__()
        self.figure: str | None = None
        self.series: dict[str, list[str]] = {}
        self.points: dict[tuple[str, str], int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "figure" and a.get("class") == "chart":
            self.figure = a["id"]
            self.series[self.figure or ""] = []
        if tag == "path" and a.get("class") == "series" and self.figure:
            label = a.get("data-label") or ""
            self.series[self.figure].append(label)
            self.points[(self.figure, label)] = len(re.findall(r"[ML]", a.get("d") or ""))


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, list[Sample]]]:
    data_dir: Path = tmp_path_factory.mktemp("reports")
    samples = store_finished_run(data_dir, "report-a", seed=7)
    store_finished_run(data_dir, "report-b", seed=8, intervals=40)
    store_finished_run(data_dir, "report-cap", seed=9, intervals=5)
    engine = make_engine(store_url(data_dir))
    with make_sessionmaker(engine)() as session:  # a capacity search's result, as the engine leaves it
        row = run_store.get_run(session, "report-cap")
        assert row is not None and row.summary is not None
        summary = Summary.model_validate(row.summary)
        summary.capacity = CAPACITY
        run_store.set_summary(session, "report-cap", summary)
    engine.dispose()
    with local_client(create_app(make_settings(data_dir))) as client:
        yield client, samples


def test_a_run_report_is_one_file_with_its_charts_summary_timeline_and_config(
    stored: tuple[TestClient, list[Sample]],
) -> None:
    client, samples = stored
    response = client.get("/api/runs/report-a/report")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assert not re.search(r"https?://|<script|<link|\ssrc=", html)  # nothing to fetch: it stands alone
    charts = Charts()
    charts.feed(html)
    assert charts.series == RUN_CHARTS
    over_time = {n for (figure, _), n in charts.points.items() if not figure.startswith("chart-distribution")}
    assert over_time == {len(samples)}  # every interval is a point of every line over time
    percentiles = {n for (figure, _), n in charts.points.items() if figure.startswith("chart-distribution")}
    assert percentiles == {10}  # min, p25 ... p99.99, max
    for section in ("summary", "latency", "breakdown", "events", "config", "notes"):
        assert f'id="{section}"' in html, section
    assert "notes of report-a: the &lt;b&gt;baseline&lt;/b&gt;" in html  # escaped, not markup
    assert "updater.transactions_per_second = 9.0" in html and "stalled" in html  # the timeline
    assert "Differences from preset light" in html
    assert f"{samples[-1].totals.transactions:,}" in html  # the totals


def test_a_comparison_report_draws_each_run_on_its_key_figures(stored: tuple[TestClient, list[Sample]]) -> None:
    client, _ = stored
    response = client.get("/api/compare/report", params={"ids": "report-a,report-b"})
    assert response.status_code == 200, response.text
    charts = Charts()
    charts.feed(response.text)
    assert charts.series and all(
        labels == ["1. stored report-a", "2. stored report-b"] for labels in charts.series.values()
    )
    points = {label: n for (_, label), n in charts.points.items()}
    assert points == {"1. stored report-a": 75, "2. stored report-b": 40}
    assert not re.search(r"https?://|<script|<link|\ssrc=", response.text)


def test_a_capacity_searchs_report_draws_its_curve(stored: tuple[TestClient, list[Sample]]) -> None:
    client, _ = stored
    html = client.get("/api/runs/report-cap/report").text
    charts = Charts()
    charts.feed(html)
    assert charts.series["chart-capacity-throughput"] == ["achieved", "offered"]
    assert charts.series["chart-capacity-latency"] == ["p50", "p95", "p99"]
    assert charts.points[("chart-capacity-throughput", "achieved")] == len(CAPACITY.steps)
    assert "Knee: <b>200 /s</b>, limited by <b>database</b>" in html
    assert html.count('<td class="text">held') == 2 and html.count('<td class="text">broke') == 1


def test_report_errors_name_the_problem(stored: tuple[TestClient, list[Sample]]) -> None:
    client, _ = stored
    missing = client.get("/api/runs/nope/report")
    assert missing.status_code == 404 and "nope" in missing.json()["detail"]
    one = client.get("/api/compare/report", params={"ids": "report-a"})
    assert one.status_code == 422 and "2 to 6" in one.json()["detail"]
    gone = client.get("/api/compare/report", params={"ids": "report-a,nope"})
    assert gone.status_code == 404 and "nope" in gone.json()["detail"]


def test_a_run_report_asked_with_thresholds_heads_with_their_verdicts(stored: tuple[TestClient, list[Sample]]) -> None:
    client, _ = stored
    plain = client.get("/api/runs/report-a/report").text
    assert 'id="thresholds"' not in plain
    judged = client.get("/api/runs/report-a/report", params={"threshold": ["errors==0", "updater.tps>1000000"]})
    assert judged.status_code == 200, judged.text
    html = judged.text
    assert html.index('id="thresholds"') < html.index('id="summary"')
    assert "<code>errors==0</code>" in html and "<code>updater.tps&gt;1000000</code>" in html
    assert html.count('badge ok">pass') == 1 and html.count('badge bad">fail') == 1
    unknown = client.get("/api/runs/report-a/report", params={"threshold": "updater.nope<1"})
    assert unknown.status_code == 422 and "updater.nope<1" in unknown.json()["detail"]
    malformed = client.get("/api/runs/report-a/report", params={"threshold": "fast"})
    assert malformed.status_code == 422 and "NAME<OP>NUMBER" in malformed.json()["detail"]
