"""GET /metrics: live run figures in Prometheus' text exposition format (for Grafana users)."""

from __future__ import annotations

from collections.abc import Iterable

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from spanload.api.deps import HubDep, SessionDep
from spanload.model.state import RunState
from spanload.store import runs as run_store

router = APIRouter(tags=["metrics"])

PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
QUANTILES = (("p50", "0.5"), ("p90", "0.9"), ("p95", "0.95"), ("p99", "0.99"), ("p999", "0.999"), ("max", "1"))


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(**labels: str) -> str:
    return "{" + ",".join(f'{k}="{_label(v)}"' for k, v in labels.items()) + "}"


def _family(name: str, kind: str, help_text: str, lines: Iterable[str]) -> list[str]:
    return [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}", *lines]


@router.get("/metrics", response_class=PlainTextResponse, responses={200: {"content": {"text/plain": {}}}})
def metrics(session: SessionDep, hub: HubDep) -> PlainTextResponse:
    """Per live run: the latest interval's gauges, latency quantiles and running totals."""
    rows, _ = run_store.list_runs(session, limit=1000)
    by_status = {state: 0 for state in RunState}
    for row in rows:
        by_status[row.status] += 1
    names = {row.id: row.name for row in rows}
    out = _family(
        "spanload_runs",
        "gauge",
        "runs in the store by status (newest 1000)",
        (f"spanload_runs{_labels(status=s.value)} {n}" for s, n in by_status.items()),
    )
    gauges, latency, totals, info = [], [], [], []
    for run_id, sample in sorted(hub.latest.items()):
        run = {"run_id": run_id}
        info.append(f"spanload_run_info{_labels(**run, name=names.get(run_id, ''))} 1")
        gauges += [f"spanload_gauge{_labels(**run, gauge=g)} {v}" for g, v in sorted(sample.gauges.items())]
        for op, pct in sorted(sample.latency.items()):
            for field, quantile in QUANTILES:
                value = getattr(pct, field)
                if value is not None:
                    latency.append(f"spanload_latency_ms{_labels(**run, op=op, quantile=quantile)} {value}")
        totals += [f"spanload_total{_labels(**run, kind=k)} {v}" for k, v in sample.totals.model_dump().items()]
    out += _family("spanload_run_info", "gauge", "live runs", info)
    out += _family("spanload_gauge", "gauge", "the latest interval's gauges of each live run", gauges)
    out += _family("spanload_latency_ms", "gauge", "the latest interval's latency quantiles, ms", latency)
    out += _family("spanload_total", "counter", "running totals of each live run", totals)
    out += _family(
        "spanload_live_viewers", "gauge", "websocket viewers connected", [f"spanload_live_viewers {hub.viewer_count()}"]
    )
    return PlainTextResponse("\n".join(out) + "\n", media_type=PROMETHEUS_CONTENT_TYPE)
