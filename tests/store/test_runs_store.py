"""Runs, statuses, events and summaries in the store (SQLite and PostgreSQL)."""

from __future__ import annotations

import subprocess
import sys

from sqlalchemy.orm import Session, sessionmaker

from spanload.model.config import ConfigPatch, RunConfig, UpdaterPatch
from spanload.model.samples import Summary, Totals
from spanload.model.state import RunState
from spanload.store import runs as run_store
from spanload.store import samples as sample_store
from spanload.store.recovery import recover_interrupted
from spanload.store.runs import INTERRUPTED_REASON
from tests.store.sample_factory import Load, SampleFactory


def test_run_keeps_config_status_timestamps_events_and_summary(sessions: sessionmaker[Session]) -> None:
    config = RunConfig(preset="light", name="first")
    with sessions() as s:
        run_store.create_run(s, "r1", config, now=100.0)
        run_store.set_status(s, "r1", RunState.STARTING, now=101.0)
        run_store.set_status(s, "r1", RunState.RUNNING, now=102.0)
        patch = ConfigPatch(updater=UpdaterPatch(transactions_per_second=20.0))
        run_store.add_config_change(s, "r1", patch.changed_fields(), "api 127.0.0.1", config.apply(patch), now=110.0)
        run_store.set_summary(s, "r1", Summary(duration_s=30.0, totals=Totals(transactions=600)))
        run_store.set_status(s, "r1", RunState.FAILED, "worker 0 exited with code 1", now=132.0)
        run_store.set_status(s, "r1", RunState.RUNNING, now=133.0)  # late message after the end: ignored
    with sessions() as s:
        row = run_store.get_run(s, "r1")
        assert row is not None
        assert (row.status, row.name, row.preset, row.target_kind) == (RunState.FAILED, "first", "light", "local")
        assert (row.created_at, row.started_at, row.ended_at) == (100.0, 102.0, 132.0)
        assert row.failure_reason == "worker 0 exited with code 1"
        assert row.config["updater"]["transactions_per_second"] == 1.0
        assert row.current_config["updater"]["transactions_per_second"] == 20.0
        assert row.summary is not None and row.summary["totals"]["transactions"] == 600
        events = run_store.list_events(s, "r1")
        assert [(e.kind, e.changes.get("status")) for e in events] == [
            ("status", "starting"),
            ("status", "running"),
            ("config_change", None),
            ("status", "failed"),
        ]
        change = events[2]
        assert (change.t, change.elapsed_s, change.who) == (110.0, 8.0, "api 127.0.0.1")
        assert change.changes == {"updater.transactions_per_second": 20.0}


def test_list_runs_newest_first_filtered_and_paginated(sessions: sessionmaker[Session]) -> None:
    with sessions() as s:
        for i, (name, preset) in enumerate(
            [("alpha", "light"), ("beta 50%", "medium"), ("gamma_x", "light"), ("delta", None), ("Alpha two", "high")]
        ):
            run_store.create_run(s, f"r{i}", RunConfig(name=name, preset=preset), now=1000.0 + i)
        run_store.set_status(s, "r2", RunState.RUNNING)
    with sessions() as s:
        rows, count = run_store.list_runs(s)
        assert [r.id for r in rows] == ["r4", "r3", "r2", "r1", "r0"] and count == 5
        rows, count = run_store.list_runs(s, limit=2, offset=2)
        assert [r.id for r in rows] == ["r2", "r1"] and count == 5
        assert [r.id for r in run_store.list_runs(s, name="ALPHA")[0]] == ["r4", "r0"]
        assert [r.id for r in run_store.list_runs(s, name="50%")[0]] == ["r1"]
        assert [r.id for r in run_store.list_runs(s, name="a_x")[0]] == ["r2"]
        assert run_store.list_runs(s, name="a%x")[1] == 0
        assert [r.id for r in run_store.list_runs(s, preset="light")[0]] == ["r2", "r0"]
        assert [r.id for r in run_store.list_runs(s, status=RunState.RUNNING)[0]] == ["r2"]
        assert run_store.list_runs(s, offset=10)[0] == []


def test_rename_notes_tags_and_delete_with_everything(sessions: sessionmaker[Session]) -> None:
    factory = SampleFactory(Load(transactions=5, mutations_per_txn=5, polls=1))
    with sessions() as s:
        run_store.create_run(s, "r1", RunConfig())
        run_store.set_status(s, "r1", RunState.RUNNING)
        for seq in range(61):
            sample_store.insert_sample(s, "r1", factory.sample(seq))
        row = run_store.update_run_meta(s, "r1", name="renamed", notes="baseline", tags=["a", "b"])
        assert row is not None and (row.name, row.notes, row.tags) == ("renamed", "baseline", ["a", "b"])
        assert run_store.update_run_meta(s, "nope", name="x") is None
        assert run_store.delete_run(s, "r1")
        assert not run_store.delete_run(s, "r1")
    with sessions() as s:
        assert run_store.get_run(s, "r1") is None
        assert sample_store.list_samples(s, "r1") == []
        assert list(sample_store.list_rollups(s, "r1")) == []
        assert run_store.list_events(s, "r1") == []


def test_restart_marks_running_runs_interrupted_and_keeps_their_data(sessions: sessionmaker[Session]) -> None:
    factory = SampleFactory(Load(transactions=5, mutations_per_txn=5, polls=1))
    with sessions() as s:
        run_store.create_run(s, "going", RunConfig(), now=1.0)
        run_store.set_status(s, "going", RunState.RUNNING, now=2.0)
        run_store.create_run(s, "done", RunConfig(), now=3.0)
        run_store.set_status(s, "done", RunState.FINISHED, now=4.0)
        for seq in range(5):
            sample_store.insert_sample(s, "going", factory.sample(seq))
    assert recover_interrupted(sessions) == ["going"]
    with sessions() as s:
        going, done = run_store.get_run(s, "going"), run_store.get_run(s, "done")
        assert going is not None and done is not None
        assert going.status is RunState.INTERRUPTED and going.failure_reason == INTERRUPTED_REASON
        assert going.ended_at == 2.0 + 5.0  # started + the last sample's elapsed time
        assert done.status is RunState.FINISHED
        assert len(sample_store.list_samples(s, "going")) == 5
        assert going.summary is not None and going.summary["totals"] == factory.totals.model_dump()
        assert run_store.list_events(s, "going")[-1].changes["status"] == "interrupted"


def test_ids_that_cannot_name_a_run_find_nothing(sessions: sessionmaker[Session]) -> None:
    with sessions() as s:
        run_store.create_run(s, "r1", RunConfig())
        for bad in ("r1\x00", "\x00", "", "r" * 33):
            assert run_store.get_run(s, bad) is None
            assert run_store.update_run_meta(s, bad, name="x") is None
            assert not run_store.delete_run(s, bad)
        assert run_store.get_runs(s, ["r1", "a\x00b"])[1] is None
        assert run_store.get_run(s, "r1") is not None


def test_restart_leaves_a_run_another_live_process_writes_and_interrupts_one_whose_writer_is_gone(
    sessions: sessionmaker[Session],
) -> None:
    host = run_store.this_process().host
    writer = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        gone = subprocess.Popen([sys.executable, "-c", "pass"])
        gone.wait()  # reaped: its pid names no process now
        with sessions() as s:
            for run_id, pid in (("cli-live", writer.pid), ("cli-dead", gone.pid)):
                run_store.create_run(s, run_id, RunConfig(), now=1.0, owner=run_store.Owner(host, pid))
                run_store.set_status(s, run_id, RunState.RUNNING, now=2.0)
            run_store.create_run(s, "serve-own", RunConfig(), now=1.0)
            run_store.set_status(s, "serve-own", RunState.RUNNING, now=2.0)
        assert sorted(recover_interrupted(sessions)) == ["cli-dead", "serve-own"]
        with sessions() as s:
            live = run_store.get_run(s, "cli-live")
            assert live is not None and live.status is RunState.RUNNING
            assert live.owner_pid == writer.pid and live.owner_host == host
    finally:
        assert writer.stdin is not None
        writer.stdin.close()
        writer.wait()
    assert recover_interrupted(sessions) == ["cli-live"]  # its writer has ended


def test_a_run_of_another_host_is_left_alone_until_its_lease_runs_out(sessions: sessionmaker[Session]) -> None:
    with sessions() as s:
        run_store.create_run(s, "far", RunConfig(), now=1.0, owner=run_store.Owner("some-other-host", 1))
        run_store.set_status(s, "far", RunState.RUNNING, now=2.0)
    with sessions() as s:
        assert run_store.mark_interrupted(s, now=2.0 + run_store.OTHER_HOST_LEASE_S) == []
        assert run_store.mark_interrupted(s, now=3.0 + run_store.OTHER_HOST_LEASE_S) == ["far"]
