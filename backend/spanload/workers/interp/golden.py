"""The cross-runtime golden file of the PRNG and the generators: ``workloads/testdata/generators.json``.

Both test suites read it: Python's checks that this module still writes the same file, Go's that
its interpreter draws the same values (``goworker/internal/interp``). Regenerate it, after a change
to the README's draw rules only, with ``python -m spanload.workers.interp.golden > FILE``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import TypeAdapter

from spanload.model.workload import Generator
from spanload.workers.interp.generators import Sequence, compile_generator, wire
from spanload.workers.interp.prng import SplitMix64, fnv1a, mix, stream

DRAWS = 12
SEED = 0x5EED_5EED_1234_ABCD

_generator: TypeAdapter[Any] = TypeAdapter(Generator)

GENERATORS: list[tuple[dict[str, Any] | str, dict[str, Any]]] = [
    ({"uniform": {"min": 1, "max": 10}}, {}),
    ({"uniform": {"min": -5, "max": "$hi"}}, {"hi": 1_000_000_007}),
    ({"zipf": {"n": 10, "s": 1.1}}, {}),
    ({"zipf": {"n": "$n", "s": 0.99}}, {"n": 1_000_000}),
    ({"zipf": {"n": 100_000, "s": 2.0}}, {}),
    ({"zipf": {"n": 50, "s": 0.5}}, {}),
    ({"sequence": {"start": 1}}, {}),
    ({"sequence": {"start": 100, "step": 5}}, {}),
    ({"choice": {"values": ["a", "b", "c"]}}, {}),
    ({"choice": {"values": [1, 2, 3], "weights": [0.7, 0.2, 0.1]}}, {}),
    ({"string": {"length": [8, 24]}}, {}),
    ({"string": {"length": 5, "alphabet": "αβγ€x"}}, {}),
    ({"bytes": {"length": [0, 6]}}, {}),
    ({"decimal": {"min": -10, "max": 500, "scale": 2}}, {}),
    ({"decimal": {"min": 0, "max": 1, "scale": 9}}, {}),
    ({"float": {"min": -1.5, "max": 2.5}}, {}),
    ({"date": {"min": "1999-12-25", "max": "2030-01-01"}}, {}),
    ({"timestamp": {"min": "2020-01-01T00:00:00Z", "max": "2026-11-25T12:00:00.5Z"}}, {}),
    ("uuid", {}),
    ({"const": "fixed"}, {}),
    ({"uniform": {"min": 0, "max": 3}, "null_fraction": 0.25}, {}),
    ({"string": {"length": 3}, "null_fraction": 0.5}, {}),
]


def build() -> dict[str, Any]:
    rng = SplitMix64(SEED)
    below = SplitMix64(SEED)
    unit = SplitMix64(SEED)
    out: dict[str, Any] = {
        "readme": "workloads/README.md: SplitMix64 and the generators; INT64 values as strings (Spanner's JSON)",
        "seed": str(SEED),
        "u64": [str(rng.u64()) for _ in range(DRAWS)],
        "below_1000": [below.below(1000) for _ in range(DRAWS)],
        "unit": [unit.unit() for _ in range(DRAWS)],
        "mix": {str(x): str(mix(x)) for x in (0, 1, SEED)},
        "fnv1a": {s: str(fnv1a(s)) for s in ("", "a", "op/place_order/0", "load/Customers", "ü€")},
        "streams": [
            {"label": label, "index": index, "u64": [str(stream(SEED, label, index).u64()) for _ in range(1)]}
            for label, index in (("op/place_order/0", 0), ("op/place_order/1", 7), ("load/Customers", 123_456))
        ],
        "generators": [],
    }
    for i, (spec, knobs) in enumerate(GENERATORS):
        draw = compile_generator(_generator.validate_python(spec), knobs)
        seq = Sequence(worker=1, workers=3)
        label = f"golden/{i}"
        executions = []
        for n in range(4):  # four executions, three draws each from one stream
            g = stream(SEED, label, n)
            executions.append([wire(draw.draw(g, seq)) for _ in range(3)])
        load_rows = [wire(draw.draw(stream(SEED, label, row), seq, row)) for row in (0, 1, 999)]
        out["generators"].append(
            {
                "generator": spec,
                "knobs": knobs,
                "label": label,
                "worker": 1,
                "workers": 3,
                "executions": executions,
                "load_rows": {"rows": [0, 1, 999], "values": load_rows},
            }
        )
    return out


def main() -> int:
    json.dump(build(), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
