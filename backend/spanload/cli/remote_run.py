"""`spanload run --server URL`: start the run on a running `spanload serve` (so it shows live in its
dashboard and is saved in its store) and follow it here: the same status block every interval,
then the summary. Ctrl-C stops the run on the server and still reports."""

from __future__ import annotations

import sys
import time
from types import SimpleNamespace
from typing import Any

from spanload.cli.outcome import Outcome
from spanload.cli.remote import Server
from spanload.cli.render import PARTIAL_INTERVAL, status_block
from spanload.model.config import RunConfig
from spanload.model.samples import Sample, Summary
from spanload.model.settings import get_settings
from spanload.model.state import RunState

MAX_SAMPLES = 5000  # the API's max_points: a longer run's samples come downsampled in --json


def run_remote(args: SimpleNamespace, config: RunConfig) -> Outcome:
    out = sys.stdout
    server = Server(args.server, args.token or get_settings().api_token)
    created = server.json("POST", "/runs", json={"config": config.model_dump(mode="json", by_alias=True)})
    run_id: str = created["id"]
    out.write(f"run {run_id}: started on {server.url} (live at {server.url}/runs/{run_id})\n")
    out.flush()
    interrupted = False
    state, shown = RunState(created["status"]), (-1, 0.0)
    run: dict[str, Any] = created
    poll_s = min(1.0, config.report_interval_s)
    while True:
        try:
            run = server.json("GET", f"/runs/{run_id}")
            if RunState(run["status"]) is not state:
                state = RunState(run["status"])
                if not args.quiet:
                    out.write(f"run {run_id}: {state.value}\n")
            if not args.quiet and run["sample_count"] and state.is_active:
                shown = _show_new(server, run_id, shown, config, out)
            if not state.is_active:
                break
            time.sleep(poll_s)
        except KeyboardInterrupt:
            if interrupted:
                raise
            interrupted = True
            out.write("stopping: writers stop, the watcher drains, then the summary...\n")
            server.request("POST", f"/runs/{run_id}/stop")
        out.flush()
    samples = server.json("GET", f"/runs/{run_id}/samples", params={"max_points": MAX_SAMPLES})["data"]
    summary = Summary.model_validate(run["summary"]) if run["summary"] is not None else None
    return Outcome(
        run_id=run_id,
        config=RunConfig.model_validate(run["config"]),
        state=state,
        reason=run["failure_reason"],
        summary=summary,
        samples=[Sample.model_validate(s) for s in samples],
        interrupted=interrupted,
        saved_in=server.url,
        server=server.url,
    )


def _show_new(server: Server, run_id: str, shown: tuple[int, float], config: RunConfig, out: Any) -> tuple[int, float]:
    """The status block of the newest sample after ``shown`` (its seq and elapsed seconds)."""
    page = server.json("GET", f"/runs/{run_id}/samples", params={"from": shown[1], "max_points": MAX_SAMPLES})
    newest = page["data"][-1] if page["data"] else None
    if newest is None or newest["seq"] <= shown[0]:
        return shown
    if newest["interval_s"] < PARTIAL_INTERVAL * config.report_interval_s:  # the stop's short last interval
        return shown
    out.write("\n".join(status_block(Sample.model_validate(newest), config)) + "\n\n")
    return int(newest["seq"]), float(newest["elapsed_s"])
