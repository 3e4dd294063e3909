"""Issue 23: one decomposition per comparison. A run whose server time SPANNER_SYS split (query /
commit apart from the front end) beside one it could not split: compare shows both the same way,
the server's time whole, and says which run lacked the split and why."""

from __future__ import annotations

import pytest

from spanload.control.compare import common_breakdowns
from spanload.model.breakdown import OpTiming, Part, SessionWait, SysLatencies, breakdown
from spanload.model.samples import Summary
from spanload.model.server_minute import NO_COMPLETE_MINUTE

POLL = "SELECT poll"
TIMING = OpTiming(
    count=10,
    total_us=300_000,
    server_us=200_000,
    server_count=10,
    statements={POLL: 10},
    session_wait=SessionWait.NOT_APPLICABLE,
)


def _summary(split: bool) -> Summary:
    sys = SysLatencies(query_s={POLL: 0.015}) if split else None
    unavailable = {} if split else {"server.poll_avg_latency_s": NO_COMPLETE_MINUTE}
    return Summary(breakdown={"watcher.poll": breakdown(TIMING, sys)}, unavailable=unavailable)


def _parts(b: object) -> dict[Part, float]:
    return {p.part: p.ms for p in b.parts}  # type: ignore[attr-defined]


def test_a_split_and_an_unsplit_run_are_shown_the_same_way_and_compare_says_why() -> None:
    split, whole = _summary(split=True), _summary(split=False)
    assert Part.QUERY_COMMIT in _parts(split.breakdown["watcher.poll"])  # the runs as stored differ
    breakdowns, notes = common_breakdowns([split, whole])
    first, second = (_parts(b["watcher.poll"]) for b in breakdowns)
    assert set(first) == set(second) == {Part.QUEUE, Part.SESSION_WAIT, Part.CLIENT, Part.SERVER}
    assert first[Part.SERVER] == pytest.approx(20.0)  # front end + query / commit, added back: 5 + 15 ms
    assert first == pytest.approx(second)
    assert notes == {
        "watcher.poll": "The server's time is shown whole for every run: #2 has no SPANNER_SYS split of "
        f"watcher.poll (#2: {NO_COMPLETE_MINUTE})."
    }


def test_runs_split_alike_keep_their_split() -> None:
    breakdowns, notes = common_breakdowns([_summary(split=True), _summary(split=True), None])
    assert all(Part.QUERY_COMMIT in _parts(b["watcher.poll"]) for b in breakdowns[:2])
    assert breakdowns[2] == {} and notes == {}
