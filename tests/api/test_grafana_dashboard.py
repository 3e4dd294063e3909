"""deploy/grafana/dashboards/spanload.json asks only for what /metrics exposes: every metric its
queries and template variables name is a series /metrics renders (parsed with prometheus-client's
parser), carrying every label the query matches on, groups by or shows in its legend."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.exposition import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import CollectorRegistry

from spanload.api.metrics import BUILTIN_RATES, RUN_GAUGES, SESSION_STATES, SpanloadCollector
from spanload.control.hub import Hub
from spanload.model import metrics as hdr
from spanload.model.breakdown import Breakdown, BreakdownPart, Part, Source
from spanload.model.samples import Sample
from spanload.model.state import RunState
from spanload.store.db import make_engine, make_sessionmaker
from spanload.store.migrate import upgrade_to_head
from spanload.store.writer import StoreWriter

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "dashboards" / "spanload.json"
SELECTOR = re.compile(r"\b(spanload_[A-Za-z0-9_]+)\s*(\{[^}]*\})?")
MATCHER_LABEL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)")
GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
LEGEND_LABEL = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
LABEL_VALUES = re.compile(r"label_values\((.*),\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)")


def every_series_exposed(tmp_path: Path) -> dict[str, set[str]]:
    """Sample name -> its label names, from /metrics' collector over a run that has every figure."""
    url = f"sqlite:///{tmp_path / 'hub.db'}"
    upgrade_to_head(url)
    writer = StoreWriter(make_sessionmaker(make_engine(url)))
    try:
        hub = Hub(writer)
        histogram = hdr.new_histogram()
        histogram.record_value(2_000)
        keys = ["updater.txn", "updater.txn_intended", "updater.txn_server", "updater.txn.failed", "watcher.notify"]
        gauges = {g: 1.0 for g in [*RUN_GAUGES, *SESSION_STATES]}
        gauges |= {g: 1.0 for rates in BUILTIN_RATES.values() for g in rates if g is not None}
        gauges |= {"op.buy.target_ps": 1.0, "op.buy.ps": 1.0, "op.buy.in_flight": 1.0}
        part = BreakdownPart(part=Part.QUEUE, ms=1.0, source=Source.MEASURED)
        hub.metrics.on_state("r1", RunState.RUNNING, now=0.0)
        hub.metrics.on_sample(
            "r1",
            Sample(
                seq=0,
                t=1.0,
                elapsed_s=1.0,
                interval_s=1.0,
                latency={k: hdr.percentiles(histogram) for k in [*keys, "op.buy"]},
                gauges=gauges,
                errors_by_code={"ABORTED": 1},
                hdr={k: hdr.encode(histogram) for k in [*keys, "op.buy"]},
                breakdown={"updater.txn": Breakdown(count=1, round_trip_ms=1.0, parts=[part])},
            ),
        )
        registry = CollectorRegistry(auto_describe=False)
        registry.register(SpanloadCollector(hub, dict.fromkeys(RunState, 0), {"r1": "all"}))
        text = generate_latest(registry).decode()
    finally:
        writer.close()
    exposed: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            exposed.setdefault(sample.name, set()).update(sample.labels)
    return exposed


def queries(dashboard: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(where, expression, legend) of every panel target and query variable."""
    out = [
        (f"panel {p['title']!r}", t["expr"], t.get("legendFormat", ""))
        for p in dashboard["panels"]
        for t in p.get("targets", [])
    ]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"]
            out.append((f"variable {variable['name']!r}", query, ""))
    return out


def problems(dashboard: dict[str, Any], exposed: dict[str, set[str]]) -> list[str]:
    found: list[str] = []
    for where, expr, legend in queries(dashboard):
        selectors = SELECTOR.findall(expr)
        if not selectors:
            found.append(f"{where}: {expr!r} names no spanload_ metric")
        grouped = {label.strip() for group in GROUPING.findall(expr) for label in group.split(",") if label.strip()}
        shown = set(LEGEND_LABEL.findall(legend))
        variable = LABEL_VALUES.search(expr)
        asked = {variable.group(2)} if variable else set()
        for metric, matchers in selectors:
            if metric not in exposed:
                found.append(f"{where}: {metric} is not a series /metrics exposes")
                continue
            labels = set(MATCHER_LABEL.findall(matchers)) | grouped | shown | asked
            if missing := labels - exposed[metric]:
                found.append(f"{where}: {metric} has no label {sorted(missing)} (it has {sorted(exposed[metric])})")
    return found


def test_every_query_of_the_dashboard_names_a_series_and_labels_that_metrics_exposes(tmp_path: Path) -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert len(queries(dashboard)) >= 20
    assert problems(dashboard, every_series_exposed(tmp_path)) == []


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("spanload_sessions{", "spanload_session_pool{", "spanload_session_pool is not a series"),
        ("sum by (run_id, code)", "sum by (run_id, grpc_code)", "has no label ['grpc_code']"),
        ('operation=~"$operation"}', 'op=~"$operation"}', "has no label ['op']"),
    ],
)
def test_the_check_fails_on_a_metric_or_label_that_does_not_exist(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    text = DASHBOARD.read_text()
    assert old.replace('"', '\\"') in text
    broken = json.loads(text.replace(old.replace('"', '\\"'), new.replace('"', '\\"'), 1))
    found = problems(broken, every_series_exposed(tmp_path))
    assert found and all(problem in f for f in found), found
