"""The interpreter's runner without a database: execution n of op on worker w draws from
stream(seed, "op/<op>/<w>", n); a patch re-paces and recompiles, or refuses as a whole."""

from __future__ import annotations

from typing import Any

import pytest

from spanload.model.config import RunConfig
from spanload.model.protocol import Counter
from spanload.workers.interp.operation import DefinitionError
from spanload.workers.interp.prng import stream
from spanload.workers.interp.runner import Interpreter
from spanload.workers.pacing import ClosedLoopPacer
from spanload.workers.stats import WorkerStats
from tests.workers.test_interp_operation import FakeDatabase

DEFINITION: dict[str, Any] = {
    "name": "r",
    "knobs": {"lo": {"default": 10}, "rate": {"default": 30.0}, "lo2": {"default": 1}},
    "values": {"k": {"uniform": {"min": "$lo", "max": 1000}}, "m": {"uniform": {"min": "$lo2", "max": 5}}},
    "operations": {
        "put": {
            "rate": "$rate",
            "max_in_flight": 4,
            "transaction": "single_use",
            "steps": [{"insert": {"table": "T", "columns": {"K": "$k"}}}],
        },
        "look": {
            "concurrency": 5,
            "think_time": "20ms",
            "transaction": "read_only",
            "steps": [{"sql": "SELECT @k, @m"}],
        },
    },
}


def config(**more: Any) -> RunConfig:
    return RunConfig.model_validate({"workload": "definition", "definition": DEFINITION, "seed": 99, **more})


def test_execution_n_on_worker_w_draws_from_its_own_stream() -> None:
    db = FakeDatabase()
    stats = WorkerStats()
    interp = Interpreter(lambda: db, config().definition, config(), stats, 1, 3)  # type: ignore[arg-type]
    for _ in range(3):
        interp.operations["put"]._execute(0.0, 0.0)
    inserted = [c[3][0][0] for c in db.calls if c[0] == "insert"]
    assert inserted == [stream(99, "op/put/1", n).between(10, 1000) for n in range(3)]
    counters, _, hdr = stats.take()
    # a writing operation also counts the legacy totals: a transaction per commit, a mutation per row
    expected = {"op.put.done": 3, "op.put.rows": 3, Counter.TRANSACTIONS: 3, Counter.MUTATIONS: 3}
    assert counters == expected and "op.put" in hdr and "op.put_intended" in hdr


def test_a_patch_repaces_every_operation_and_a_knob_change_that_cannot_run_changes_nothing() -> None:
    first = config()
    interp = Interpreter(FakeDatabase, first.definition, first, WorkerStats(), 0, 2)  # type: ignore[arg-type]
    put, look = interp.operations["put"], interp.operations["look"]
    assert isinstance(look._pacer, ClosedLoopPacer) and look._pacer._wanted_threads == 3  # 5 executors: 3 + 2
    assert put._pacer.rate == 15.0 and put._pacer._wanted_threads == 2  # half of 30/s and of 4 in flight
    interp.apply(config(knobs={"rate": 50.0, "lo": 20}, operations={"look": {"concurrency": 8, "think_time_ms": 5}}))
    assert put._pacer.rate == 25.0 and look._pacer._wanted_threads == 4 and look._pacer._think_time_s == 0.005
    plans = put.plan, look.plan
    with pytest.raises(DefinitionError, match="above max"):
        interp.apply(config(knobs={"lo": 11, "lo2": 6, "rate": 1.0}))  # put compiles, look cannot: m's min 6 > max 5
    assert (put.plan, look.plan) == plans and put._pacer.rate == 25.0
