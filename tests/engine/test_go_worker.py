"""The Go worker (goworker/, binary spanload-worker-go) against the Python side of the protocol.

Histograms cross between the Go and Python HdrHistogram libraries in both directions with known
values, and the Python supervisor runs a whole run on Go workers against the local Spanner,
reconciled exactly.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig
from spanload.model.metrics import decode, encode, new_histogram, percentiles
from spanload.model.samples import Op
from spanload.model.settings import Settings
from spanload.model.state import RunState
from tests.engine.conftest import LocalTarget
from tests.engine.test_supervisor import Recorder
from tests.helpers import REPO, VENV_BIN, free_port

GO_WORKER = VENV_BIN / "spanload-worker-go"
PYTHON_FIXTURE = REPO / "goworker" / "internal" / "metrics" / "testdata" / "python_hdrh.txt"


def _go(*args: str) -> str:
    if not GO_WORKER.exists():
        pytest.fail(f"no {GO_WORKER} (`make install` builds it)")
    out = subprocess.run([str(GO_WORKER), *args], capture_output=True, text=True, timeout=30, check=True)
    return out.stdout.strip()


def test_python_decodes_what_go_encoded() -> None:
    values = [*range(1, 1001), *[250_000] * 10, 3_600_000_000]
    histogram = decode(_go("--hdr-selftest", ",".join(map(str, values))))
    assert histogram.get_total_count() == 1011
    assert histogram.get_min_value() == 1
    assert histogram.get_value_at_percentile(50) == 506
    assert histogram.get_value_at_percentile(99) == 250_111
    assert histogram.get_max_value() == 3_600_809_983
    # the Go histogram has Spanload's range and precision, so the aggregator's merge takes it
    p = percentiles(histogram)
    assert (p.count, p.p50, p.p99) == (1011, 0.506, 250.111)


def test_go_decodes_what_python_encoded() -> None:
    histogram = new_histogram()
    for value in (7, 70, 700, 7000, 7000):
        histogram.record_value(value)
    summary = json.loads(_go("--hdr-selftest", "@" + encode(histogram)))
    assert summary == {"count": 5, "min": 7, "max": 7003, "p50": 700, "p90": 7003, "p99": 7003, "p99.9": 7003}


def test_the_go_tests_python_fixture_is_what_python_encodes() -> None:
    """goworker's Go test decodes this fixture; it must really be Python's encoding of its values."""
    histogram = new_histogram()
    for value in range(1, 1001):
        histogram.record_value(value)
    for _ in range(10):
        histogram.record_value(250_000)
    histogram.record_value(3_600_000_000)
    assert PYTHON_FIXTURE.read_text().splitlines()[1] == encode(histogram)


def test_a_bad_selftest_argument_is_a_sentence_and_exit_code_2() -> None:
    out = subprocess.run([str(GO_WORKER), "--hdr-selftest", "7,x"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2
    assert out.stderr.strip() == 'spanload-worker-go: not a list of integer microseconds: "x"'


@pytest.mark.timeout(120)
def test_the_python_supervisor_runs_go_workers_that_reconcile(local_spanner: LocalTarget) -> None:
    config = local_spanner.config(
        {
            "duration_s": 4,
            "processes": 2,
            "updater": {"transactions_per_second": 40, "key_space": 300},
            "reader": {"enabled": True, "reads_per_second": 20},
        }
    )

    async def run() -> Recorder:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink, worker_command=[str(GO_WORKER)])
        await supervisor.start("go", config)
        await asyncio.wait_for(supervisor.wait_finished("go"), 90)
        return sink

    sink = asyncio.run(run())
    assert sink.states[-1] == (RunState.FINISHED, None)
    summary = sink.summary
    assert summary is not None and summary.reconciliation is not None
    r = summary.reconciliation
    assert r.ok, r.detail
    assert r.final_versions_received == r.keys_written > 0
    assert r.versions_received + r.superseded_unseen == r.versions_written == summary.totals.mutations
    assert summary.totals.received_changes == r.versions_received
    assert summary.totals.errors == 0 and summary.totals.reads > 0
    server, client = summary.latency[Op.UPDATER_TXN_SERVER], summary.latency[Op.UPDATER_TXN]
    assert server.count == client.count == summary.totals.transactions
    assert summary.latency[Op.READER_READ_SERVER].count == summary.totals.reads


def test_go_worker_sources_are_a_module_of_their_own() -> None:
    """make install builds the binary from goworker/ with the Spanner client localspanner pins."""
    go_mod = (REPO / "goworker" / "go.mod").read_text()
    local_mod = (REPO / "localspanner" / "go.mod").read_text()
    pin = next(line.strip() for line in local_mod.splitlines() if "cloud.google.com/go/spanner " in line)
    assert pin in go_mod
    assert Path(GO_WORKER).exists()


def test_an_unreachable_target_fails_a_go_run_naming_the_address_and_the_grpc_status() -> None:
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    config = RunConfig.model_validate(
        {"runtime": "go", "target": {"kind": "emulator", "emulator_host": address}, "client": {"timeout_ms": 2000}}
    )

    async def run() -> Recorder:
        sink = Recorder()
        supervisor = Supervisor(Settings(), sink)
        await supervisor.start("unreachable-go", config)
        await asyncio.wait_for(supervisor.wait_finished("unreachable-go"), 60)
        return sink

    sink = asyncio.run(run())
    assert [state for state, _ in sink.states] == [RunState.STARTING, RunState.FAILED]
    reason = sink.states[-1][1]
    # the run is the change watcher definition's: the control plane creates its schema before the
    # workers connect, and meets the unreachable target first
    assert reason is not None and reason.startswith("could not create the schema of workload 'change_watcher': ")
    assert f"the emulator target at {address} did not answer: UNAVAILABLE: " in reason
