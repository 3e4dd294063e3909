"""Chaos: SIGKILL the local Spanner under a running `spanload serve` run. serve restarts it on the
same address and data directory; the run counts the outage as errors, marks it on its timeline,
recovers by itself, and finishes with every change it committed received exactly once."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Poller, ServeProcess, wait_for

RUN_S = 20
KILL_AFTER_SAMPLES = 4
RESTART_BACKOFF_S = 2.0  # long enough for a health poll every 0.1 s to see `restarting`
TIMEOUT_MS = 1000  # client.timeout_ms: an operation against the dead server fails within it
END_TIMEOUT_S = 180.0
OUTAGE_CODES = {"UNAVAILABLE", "DEADLINE_EXCEEDED"}


class HealthWatch:
    """Polls /api/health every 0.1 s on a thread and keeps every (state, restarts, pid) it saw change;
    a poll that fails is raised in the test (by ``seen_now`` and on exit), not lost with the thread."""

    def __init__(self, url: str) -> None:
        self._api = httpx.Client(base_url=url, timeout=5)
        self._seen: list[tuple[str, int, int | None]] = []
        self._poller = Poller(self._poll, 0.1, "health-watch")

    def _poll(self) -> None:
        local = self._api.get("/api/health").json()["local_spanner"]
        seen = (local["state"], local["restarts"], local["pid"])
        if not self._seen or self._seen[-1] != seen:
            self._seen.append(seen)

    @property
    def seen(self) -> list[tuple[str, int, int | None]]:
        self._poller.check()
        return self._seen

    def __enter__(self) -> HealthWatch:
        self._poller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._poller.stop()
        finally:
            self._api.close()


@pytest.mark.parametrize("runtime", ["python", "go"])
def test_a_killed_local_spanner_is_restarted_and_the_run_recovers_with_its_data_intact(
    tmp_path: Path, runtime: str
) -> None:
    """Both worker runtimes: the Python and the Go workers ride through the restart alike."""
    env = {"SPANLOAD_LOCAL_SPANNER_RESTART_BACKOFF_S": str(RESTART_BACKOFF_S)}
    with ServeProcess(tmp_path, env=env) as serve, httpx.Client(base_url=serve.url, timeout=30) as api:
        first_pid = serve.health["local_spanner"]["pid"]
        address = serve.health["local_spanner"]["address"]
        overrides = {"duration_s": RUN_S, "client": {"timeout_ms": TIMEOUT_MS}, "runtime": runtime}
        created = api.post("/api/runs", json={"preset": "light", "name": "chaos", "overrides": overrides})
        assert created.status_code == 201, created.text
        run_id = created.json()["id"]

        def run() -> dict[str, Any]:
            body: dict[str, Any] = api.get(f"/api/runs/{run_id}").json()
            return body

        def samples_at_least(n: int) -> dict[str, Any] | None:
            current = run()
            assert current["status"] not in ("failed", "finished"), current["failure_reason"]
            return current if current["sample_count"] >= n else None

        wait_for(lambda: samples_at_least(KILL_AFTER_SAMPLES), 120, f"{KILL_AFTER_SAMPLES} samples")
        with HealthWatch(serve.url) as health:
            wait_for(lambda: True if health.seen else None, 30, "the first health poll")
            killed_at = time.time()
            os.kill(first_pid, signal.SIGKILL)
            wait_for(lambda: True if health.seen and health.seen[-1][:2] == ("up", 1) else None, 60, "restart")
        ended = wait_for(
            lambda: current if (current := run())["status"] in ("finished", "failed") else None,
            END_TIMEOUT_S,
            "the run to end",
        )
        samples = api.get(f"/api/runs/{run_id}/samples", params={"max_points": 20000}).json()["data"]
        events = api.get(f"/api/runs/{run_id}/export").json()["events"]
        after = api.get("/api/health").json()["local_spanner"]

    # health: the same server went `restarting`, then `up` again as a new process, once
    states = [(state, restarts) for state, restarts, _ in health.seen]
    assert states == [("up", 0), ("restarting", 0), ("up", 1)], health.seen
    assert health.seen[1][2] is None and health.seen[2][2] not in (None, first_pid)
    assert (after["state"], after["restarts"], after["address"], after["last_exit"]) == (
        "up",
        1,
        address,
        "was killed by SIGKILL",
    )

    # the run went on and finished by itself
    data_files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "local-spanner").rglob("*"))
    assert ended["status"] == "finished", f"{ended['failure_reason']}; data directory: {data_files}"
    assert ended["config"]["runtime"] == runtime

    # the timeline: running, target down, target up, stopping, in that order
    kinds = [e["kind"] if e["kind"] != "status" else e["changes"]["status"] for e in events]
    assert kinds == ["starting", "running", "target_down", "target_up", "stopping", "finished"], events
    down, up = events[2], events[3]
    assert down["changes"] == {
        "address": address,
        "restarts": 0,
        "reason": "local Spanner was killed by SIGKILL",
        "restart_in_s": RESTART_BACKOFF_S,
    }
    assert (up["changes"]["address"], up["changes"]["restarts"]) == (address, 1)
    assert up["changes"]["down_s"] >= RESTART_BACKOFF_S
    assert up["elapsed_s"] - down["elapsed_s"] >= RESTART_BACKOFF_S

    # errors: none before the kill; the outage's counted from the kill on, and seen while the target
    # was down: the first interval with errors ends no later than the first one to end after the
    # target was up again (an order of intervals, which a slow interval does not change)
    before = [s for s in samples if s["t"] <= killed_at]
    outage = [s for s in samples if s["t"] > killed_at]
    assert len(before) >= KILL_AFTER_SAMPLES and all(s["errors_by_code"] == {} for s in before)
    errored = [s for s in outage if s["errors_by_code"]]
    first_up = next(s for s in samples if s["elapsed_s"] > up["elapsed_s"])
    assert errored and errored[0]["elapsed_s"] <= first_up["elapsed_s"], (up, [s["errors_by_code"] for s in outage])
    summary = ended["summary"]
    per_sample: Counter[str] = Counter()
    for sample in samples:
        per_sample.update(sample["errors_by_code"])
    assert summary["errors_by_code"] == dict(per_sample)
    assert set(per_sample) <= OUTAGE_CODES
    assert summary["totals"]["errors"] == sum(per_sample.values()) > 0

    # throughput returns once the target is up again
    back = [s for s in samples if s["elapsed_s"] > up["elapsed_s"] + 2]
    assert sum(s["gauges"].get("updater.tps", 0) for s in back) > 0
    assert back[-1]["totals"]["transactions"] > outage[0]["totals"]["transactions"]

    # data intact: every change committed (outside the commits of unknown outcome) received once
    rec = summary["reconciliation"]
    assert rec is not None
    assert (rec["duplicates"], rec["unexpected"], rec["final_versions_missing"]) == (0, 0, 0), rec
    assert rec["final_versions_received"] == rec["keys_written"] > 0
    assert rec["versions_written"] - rec["versions_received"] == rec["superseded_unseen"]
    assert rec["ok"] is True
