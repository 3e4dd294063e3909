"""The Spanner type of each value a definition can give (workloads/README.md, "Generators"): one
table both runtimes and the validator read, so a parameter is typed the same everywhere."""

from __future__ import annotations

from typing import Any

from spanload.model.workload import BARE_GENERATORS, WorkloadDefinition, generator_kind, is_ref, ref_name

GENERATOR_TYPES: dict[str, str] = {
    "uniform": "INT64",
    "zipf": "INT64",
    "sequence": "INT64",
    "string": "STRING",
    "uuid": "STRING",
    "bytes": "BYTES",
    "decimal": "NUMERIC",
    "float": "FLOAT64",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "now": "TIMESTAMP",
    "commit_timestamp": "TIMESTAMP",
    "versioned_key": "INT64",
    "fresh_key": "INT64",
    "version": "INT64",
    "writer_id": "STRING",
}
KNOB_TYPES = {"bool": "BOOL", "int": "INT64", "float": "FLOAT64", "string": "STRING"}


def literal_type(value: Any) -> str | None:
    """A literal's type; None for NULL, which fits any column."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "BOOL"
    if isinstance(value, int):
        return "INT64"
    if isinstance(value, float):
        return "FLOAT64"
    return "STRING"


def generator_type(gen: Any) -> str | None:
    """The Spanner type a generator draws; for ``choice`` and ``const`` the type of their values."""
    kind = generator_kind(gen)
    if kind == "choice":
        kinds = {literal_type(v) for v in gen.choice.values} - {None}
        return kinds.pop() if len(kinds) == 1 else "STRING"
    if kind == "const":
        return literal_type(gen.const)
    return GENERATOR_TYPES[kind]


def value_type(value: Any, definition: WorkloadDefinition, bound: dict[str, str] | None = None) -> str | None:
    """The type of a value in a step: a ``$name`` (knob, value, or a column bound earlier, whose
    types ``bound`` gives), an inline generator, or a literal."""
    if is_ref(value):
        name = ref_name(value)
        if bound is not None and name in bound:
            return bound[name]
        if name in definition.knobs:
            return KNOB_TYPES[definition.knobs[name].kind]
        return generator_type(definition.values[name])
    if isinstance(value, str | int | float | bool) or value is None:
        if isinstance(value, str) and value in BARE_GENERATORS:
            return GENERATOR_TYPES[value]
        return literal_type(value)
    return generator_type(value)
