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
    ({"string": {"length": [0, 6], "alphabet": "x"}}, {}),  # one letter: its draws still advance the stream
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
    out["definition"] = definition_draws()
    return out


# A definition whose executions and load rows pin the order of draws (workloads/README.md, "Order of
# draws"): values in ``values`` order whatever order the statement names them in, params in the order
# of ``params``, a step's ``rows`` before its rows' inline generators, a load row's values first.
DEFINITION: dict[str, Any] = {
    "name": "golden",
    "knobs": {"top": {"default": 1000}, "lines": {"default": 2}},
    "values": {
        "customer": {"zipf": {"n": "$top", "s": 1.1}},
        "order_id": "uuid",
        "unused": {"uniform": {"min": 1, "max": 9}},
        "amount": {"decimal": {"min": 1, "max": 500, "scale": 2}},
        "serial": {"sequence": {"start": 10, "step": 3}},
    },
    "load": {
        "Customers": {
            "rows": 10,
            "columns": {
                "CustomerId": {"sequence": {"start": 1}},
                "Name": {"string": {"length": [3, 6]}},
                "Amount": "$amount",
                "Kind": {"choice": {"values": ["a", "b"], "weights": [3, 1]}},
            },
        }
    },
    "operations": {
        "place_order": {
            "rate": 1,
            "steps": [
                {
                    "sql": "SELECT @amount, @customer, @p, @q",
                    "params": {"q": {"float": {"min": 0, "max": 1}}, "p": {"uniform": {"min": 1, "max": 6}}},
                },
                {
                    "insert": {
                        "table": "Lines",
                        "rows": {"uniform": {"min": 1, "max": "$lines"}},
                        "columns": {
                            "OrderId": "$order_id",
                            "Line": {"sequence": {"start": 1}},
                            "Sku": {"string": {"length": 4}, "null_fraction": 0.3},
                            "Qty": {"uniform": {"min": 1, "max": 5}},
                            "Serial": "$serial",
                            "At": "commit_timestamp",
                        },
                    }
                },
                {
                    "read": {
                        "table": "Customers",
                        "key": {"CustomerId": {"uniform": {"min": 1, "max": 10}}},
                        "columns": ["Name"],
                    }
                },
            ],
        }
    },
}
DEFINITION_WORKER, DEFINITION_WORKERS = 1, 2


def definition_draws() -> dict[str, Any]:
    """Executions 0..3 of ``place_order`` on worker 1 of 2, and rows 0, 1 and 7 of the load."""
    from spanload.model.workload_file import validate_data
    from spanload.workers.interp.load import tables
    from spanload.workers.interp.operation import compile_operation
    from spanload.workers.interp.prng import load_label, operation_label

    definition = validate_data(DEFINITION)
    knobs = definition.knob_values({})
    plan = compile_operation(definition, "place_order", knobs)
    seq = Sequence(DEFINITION_WORKER, DEFINITION_WORKERS)
    label = operation_label("place_order", DEFINITION_WORKER)
    executions = []
    for n in range(4):
        env, steps = plan.draw(stream(SEED, label, n), seq)
        executions.append(
            {
                "values": {k: wire(v) for k, v in env.items() if k in definition.values},
                "steps": [[[wire(v) for v in row] for row in rows] for rows in steps],
            }
        )
    (customers,) = tables(definition, knobs, SEED)
    load_seq = Sequence()
    return {
        "readme": (
            "executions: execution n of the operation on this worker; values: the values it refers to, "
            "in values order; steps: per step, per row, what its inline generators drew, in the order "
            "written (a statement's params in the order of params). load.rows: row i's columns as written"
        ),
        "definition": DEFINITION,
        "worker": DEFINITION_WORKER,
        "workers": DEFINITION_WORKERS,
        "operation": "place_order",
        "label": label,
        "executions": executions,
        "load": {
            "table": "Customers",
            "label": load_label("Customers"),
            "rows": {str(i): [wire(v) for v in customers.row(i, load_seq)] for i in (0, 1, 7)},
        },
    }


def main() -> int:
    json.dump(build(), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
