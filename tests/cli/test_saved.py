"""A headless run saved in the run store names its process as the owner, so a serve starting on
the same store meanwhile (another process) leaves the run going instead of marking it interrupted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from spanload.cli.saved import TeeSink, open_store, saving
from spanload.model.config import RunConfig
from spanload.model.state import RunState
from spanload.store import runs as run_store
from tests.api.conftest import make_settings

RECOVER = """
import sys
from spanload.store.db import make_engine, make_sessionmaker
from spanload.store.recovery import recover_interrupted
print(",".join(recover_interrupted(make_sessionmaker(make_engine(sys.argv[1])))))
"""


def recover_in_another_process(store_url: str) -> str:
    done = subprocess.run([sys.executable, "-c", RECOVER, store_url], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_serve_starting_during_a_headless_run_leaves_it_going(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    with saving(settings, "headless", RunConfig(), TeeSink()) as sink:
        sink.on_state("headless", RunState.RUNNING, None)
        assert recover_in_another_process(settings.store_url) == ""
        with open_store(settings) as sessions, sessions() as s:
            row = run_store.get_run(s, "headless")
            assert row is not None and row.status is not RunState.INTERRUPTED
            assert (row.owner_host, row.owner_pid) == (run_store.this_process().host, run_store.this_process().pid)
