"""Issue 29: the Python worker's switching watch (workers/interp/watch_switch.py) with stand-in
watchers: each way's hand-over time and the new watcher's start, and a watcher that cannot be made
(a change stream the target refuses) leaving the old one watching, told once, tried again only
when the knob moves. The real hand-over against the local Spanner: tests/engine/test_watch_switch_e2e.py."""

from __future__ import annotations

import datetime as dt
from typing import Any

from spanload.model.protocol import WatchSwitched
from spanload.model.workload import KnobValue, WatchMode
from spanload.model.workload_file import validate_data
from spanload.workers.interp import watch_switch
from spanload.workers.interp.watch_switch import SwitchingWatch

CREATED = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
NOW = CREATED + dt.timedelta(hours=1)
DEFINITION = validate_data(
    {
        "name": "switch",
        "knobs": {"m": {"default": "poll", "choices": ["poll", "change_stream"]}},
        "operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
        "watch": {"table": "T", "timestamp": "Ts", "mode": "$m"},
    }
)


class _Watcher:
    """Records what the switching watch asks; its hand-over returns ``at`` + 1 s."""

    def __init__(self, mode: WatchMode, start: dt.datetime) -> None:
        self.mode, self.start_ts = mode, start
        self.created_at = CREATED if mode is WatchMode.CHANGE_STREAM else None
        self.seen: Any = None
        self.next_sql = mode.value
        self.paused = False
        self.started = False
        self.handed_at: dt.datetime | None = None
        self.applied: list[dict[str, KnobValue]] = []

    def set_paused(self, paused: bool) -> None:
        self.paused = paused

    def set_start(self, start: dt.datetime) -> None:
        self.start_ts = start

    def start(self) -> None:
        self.started = True

    def apply(self, knobs: dict[str, KnobValue]) -> None:
        self.applied.append(knobs)

    def hand_over(self, at: dt.datetime | None) -> dt.datetime:
        assert at is not None
        self.handed_at = at
        return at + dt.timedelta(seconds=1)

    def stop(self) -> None:
        pass

    def stop_and_drain(self) -> None:
        pass


def _switching(refuse: set[WatchMode]) -> tuple[SwitchingWatch, list[_Watcher], list[WatchSwitched]]:
    made: list[_Watcher] = []
    told: list[WatchSwitched] = []

    def make(mode: WatchMode, knobs: dict[str, KnobValue], start: dt.datetime) -> _Watcher:
        if mode in refuse:
            raise PermissionError("no change streams here")
        made.append(_Watcher(mode, start))
        return made[-1]

    watch = SwitchingWatch(make, lambda: None, DEFINITION, {"m": "poll"}, CREATED, told.append)
    return watch, made, told


def test_each_way_hands_over_at_the_old_watchers_time(monkeypatch: Any) -> None:
    monkeypatch.setattr(watch_switch, "server_now", lambda database: NOW)
    watch, made, told = _switching(set())
    watch.seen = "ledger"
    watch.start()
    for mode in ("change_stream", "poll"):
        watch.apply({"m": mode})
        assert watch._thread is not None
        watch._thread.join(5)
    poll, stream, poll_again = made
    # poll -> stream: the pollers hand over at the stream's creation (or later); it reads from just after
    assert (poll.handed_at, stream.start_ts) == (CREATED, CREATED + dt.timedelta(seconds=1, microseconds=1))
    # stream -> poll: the stream at the server's time; the pollers read the rows after what it returned
    assert (stream.handed_at, poll_again.start_ts) == (NOW, NOW + dt.timedelta(seconds=1))
    assert stream.started and poll_again.started and poll_again.seen == "ledger"
    assert [(t.previous, t.mode, t.error) for t in told] == [
        (WatchMode.POLL, WatchMode.CHANGE_STREAM, None),
        (WatchMode.CHANGE_STREAM, WatchMode.POLL, None),
    ]
    assert watch.next_sql == "poll"


def test_a_watcher_that_cannot_be_made_leaves_the_old_one_watching() -> None:
    watch, made, told = _switching({WatchMode.CHANGE_STREAM})
    watch.start()
    watch.apply({"m": "change_stream"})
    assert watch._thread is not None
    watch._thread.join(5)
    watch.apply({"m": "change_stream"})  # the same value again: not tried again
    assert [(t.mode, t.previous, t.error) for t in told] == [
        (
            WatchMode.POLL,
            WatchMode.POLL,
            "the change_stream watcher could not start: PermissionError: no change streams here",
        )
    ]
    (poll,) = made
    assert watch.current is poll and poll.applied == [{"m": "change_stream"}, {"m": "change_stream"}]
    watch.apply({"m": "poll"})
    watch.apply({"m": "change_stream"})  # the knob moved: tried again, refused again
    assert watch._thread is not None
    watch._thread.join(5)
    assert len(told) == 2 and watch.current is poll


def test_before_the_run_begins_the_watcher_is_replaced_without_a_hand_over() -> None:
    watch, made, told = _switching(set())
    watch.apply({"m": "change_stream"})
    poll, stream = made
    assert watch.current is stream and poll.handed_at is None and told == []
