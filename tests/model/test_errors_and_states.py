"""The one error tree and the one table of which run states accept which actions."""

from __future__ import annotations

import pytest

from spanload.engine.thresholds import ThresholdError
from spanload.model.errors import RunConflict, RunError, RunInvalid, RunNotFound, Unavailable, UnknownPreset
from spanload.model.state import ALLOWED, RunAction, RunState, check_action
from spanload.spanner.local_server import LocalSpannerError


@pytest.mark.parametrize(
    ("error", "status", "exit_code"),
    [
        (RunError, 500, 1),
        (RunNotFound, 404, 1),
        (RunConflict, 409, 1),
        (RunInvalid, 422, 2),
        (UnknownPreset, 422, 2),
        (ThresholdError, 422, 2),
        (Unavailable, 503, 1),
        (LocalSpannerError, 503, 1),
    ],
)
def test_every_error_carries_its_http_status_and_exit_code(error: type[RunError], status: int, exit_code: int) -> None:
    err = error("one sentence")
    assert isinstance(err, RunError)
    assert (err.status_code, err.exit_code, str(err), err.detail) == (status, exit_code, "one sentence", "one sentence")


EXPECTED = {
    RunAction.CHANGE: {RunState.STARTING, RunState.PRELOADING, RunState.RUNNING, RunState.PAUSED},
    RunAction.PAUSE: {RunState.RUNNING},
    RunAction.RESUME: {RunState.PAUSED},
    RunAction.STOP: {RunState.PENDING, RunState.STARTING, RunState.PRELOADING, RunState.RUNNING, RunState.PAUSED},
    RunAction.DELETE: {RunState.FINISHED, RunState.FAILED, RunState.INTERRUPTED},
}


@pytest.mark.parametrize("action", list(RunAction))
def test_each_action_is_accepted_in_exactly_its_states(action: RunAction) -> None:
    assert set(ALLOWED[action]) == EXPECTED[action]
    for state in RunState:
        if state in EXPECTED[action]:
            check_action("r1", state, action)
        else:
            with pytest.raises(RunConflict) as refused:
                check_action("r1", state, action)
            assert str(refused.value) == f"cannot {action.value} run 'r1': it is {state.value}"
