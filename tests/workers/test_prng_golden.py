"""SplitMix64 and the generators against the cross-runtime golden file (Go's suite reads it too)."""

from __future__ import annotations

import json
from pathlib import Path

from spanload.workers.interp import golden
from spanload.workers.interp.prng import SplitMix64

GOLDEN = Path(__file__).parents[2] / "workloads" / "testdata" / "generators.json"


def test_splitmix64_draws_the_reference_sequence() -> None:
    # Vigna's splitmix64.c seeded with 1234567 (the values the reference implementation prints)
    rng = SplitMix64(1234567)
    assert [rng.u64() for _ in range(3)] == [6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_the_golden_file_is_what_the_python_interpreter_draws() -> None:
    assert json.loads(GOLDEN.read_text()) == json.loads(json.dumps(golden.build()))
