"""The knob flags of `spanload run`, generated from the run config's fields: one flag per field,
its type, choices, help and bounds taken from the field (the same Annotated aliases the API's
schema shows). Short names the command line had before keep working as aliases."""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from spanload.model.config import SCHEMA_WORKLOADS, RunConfig, Workload

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s|m|h)?\s*$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}

# `--preset` picks the base config instead; `--ray ADDRESS` (placement.address) implies placement.kind;
# a definition comes from `--workload-file`, its knobs from `--set name=value`; a profile from `--stages`,
# abort rules from `--abort-on`
NOT_FLAGS = frozenset(
    {"preset", "placement.kind", "definition", "knobs", "operations", "profile", "abort_on", "capacity"}
)
ALIASES = {  # dotted field -> the flag's older, shorter name (listed first, so errors name it)
    "updater.transactions_per_second": "--tps",
    "updater.mutations_per_transaction": "--mutations",
    "watcher.poll_interval_ms": "--poll-interval",
    "reader.think_time_ms": "--think-time",
    "reader.staleness_s": "--staleness",
    "target.kind": "--target",
    "duration_s": "--duration",
    "report_interval_s": "--interval",
    "client.timeout_ms": "--timeout",
    "placement.address": "--ray",
}
QUALIFIED = frozenset(  # flags named after their section too: --preload-rows, not --rows
    {"preload.rows", "target.commit_knee.rate", "target.commit_knee.delay_ms"}
)
# Fields whose bare flag name came first and stays, though a later section has a field of the same
# name (that one is section-prefixed: --tpcc-transactions-per-second, --tpcc-mode).
KEEP_BARE = frozenset({"updater.transactions_per_second", "updater.mode"})
SWITCHES = {  # dotted boolean field -> a one-word switch and the value it sets
    "updater.enabled": ("--no-updater", False),
    "watcher.enabled": ("--no-watcher", False),
    "watcher.table_hint": ("--no-table-hint", False),
    "reader.enabled": ("--reader", True),
    "client.multiplexed_sessions": ("--no-multiplexed-sessions", False),
}


def parse_duration(text: str) -> float:
    """``60s``, ``2m``, ``1h``, ``500ms`` or plain seconds, as seconds."""
    match = _DURATION.match(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 60s, 2m, 1h or 500ms")
    return float(match.group(1)) * _UNIT_S[match.group(2)]


def parse_ms(text: str) -> int:
    """``1s``, ``500ms`` or plain milliseconds, as milliseconds."""
    return round(parse_duration(text if re.search(r"[a-z]$", text.strip()) else text + "ms") * 1000)


@dataclass(frozen=True)
class Knob:
    """One leaf field of the run config: ``path`` is its key path in the config's JSON (aliases)."""

    path: tuple[str, ...]
    field: FieldInfo

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    @property
    def dest(self) -> str:
        return "knob:" + self.dotted

    @property
    def kind(self) -> Any:
        members = [a for a in get_args(self.field.annotation) if a is not type(None)]
        return members[0] if members else self.field.annotation


def knobs(model: type[BaseModel] = RunConfig, prefix: tuple[str, ...] = ()) -> Iterator[Knob]:
    """Every leaf field of ``model``, sections (nested models) walked in order."""
    for name, field in model.model_fields.items():
        key = (*prefix, field.alias or name)
        if ".".join((*prefix, name)) in NOT_FLAGS:
            continue
        members = [a for a in get_args(field.annotation) if a is not type(None)]
        kind = members[0] if len(members) == 1 else field.annotation  # a section may be optional
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            yield from knobs(kind, key)
        else:
            yield Knob(key, field)


_BOUNDS = (
    ("gt", "> {:,}"),
    ("ge", ">= {:,}"),
    ("lt", "< {:,}"),
    ("le", "<= {:,}"),
    ("max_length", "at most {} characters"),
)


def _bounds(field: FieldInfo) -> str:
    """The field's constraints (annotated-types markers in its metadata), as help text."""
    parts = []
    for marker in field.metadata:
        for attr, text in _BOUNDS:
            value = getattr(marker, attr, None)
            if value is not None:
                parts.append(text.format(value))
    return ", ".join(parts)


def _help(knob: Knob) -> str:
    text = knob.field.description or knob.path[-1].replace("_", " ")
    notes = [b] if (b := _bounds(knob.field)) else []
    default = None if knob.field.is_required() else knob.field.get_default(call_default_factory=True)
    if default is not None and not isinstance(default, bool):
        notes.append(f"default {default.value if isinstance(default, Enum) else default}")
    return f"{text} ({'; '.join(notes)})" if notes else text


def _converter(knob: Knob) -> tuple[Callable[[str], Any], str]:
    """How a flag's text becomes the field's value, and the metavar that says so."""
    name = knob.path[-1]
    if name.endswith("_ms"):
        return parse_ms, "MS"
    if name.endswith("_s"):
        return parse_duration, "DURATION"
    converter: Callable[[str], Any] = knob.kind
    return converter, {int: "N", float: "X"}.get(knob.kind, "TEXT")


def add_knob_flags(parser: argparse.ArgumentParser) -> None:
    """A flag for every knob of the run config, grouped by section."""
    all_knobs = list(knobs())
    leaf_count = Counter(k.path[-1] for k in all_knobs)
    groups: dict[str, argparse._ArgumentGroup] = {}
    for knob in all_knobs:
        section = knob.path[0] if len(knob.path) > 1 else "run"
        group = groups.get(section) or groups.setdefault(section, parser.add_argument_group(section))
        bare = (leaf_count[knob.path[-1]] == 1 or knob.dotted in KEEP_BARE) and knob.dotted not in QUALIFIED
        leaf = knob.path[-1] if bare else "-".join(knob.path)
        flag = "--" + leaf.replace("_", "-")
        names = [ALIASES[knob.dotted], flag] if knob.dotted in ALIASES else [flag]
        if knob.kind is bool:
            group.add_argument(flag, dest=knob.dest, action=argparse.BooleanOptionalAction, help=_help(knob))
            switch, value = SWITCHES.get(knob.dotted, (None, None))
            if switch is not None and switch != "--no-" + flag[2:]:
                same = flag if value else "--no-" + flag[2:]
                group.add_argument(switch, dest=knob.dest, action="store_const", const=value, help=f"= {same}")
        elif isinstance(knob.kind, type) and issubclass(knob.kind, Enum):
            group.add_argument(*names, dest=knob.dest, choices=[e.value for e in knob.kind], help=_help(knob))
        else:
            convert, metavar = _converter(knob)
            group.add_argument(*names, dest=knob.dest, type=convert, metavar=metavar, help=_help(knob))
    groups["run"].add_argument(
        "--schema",
        dest="knob:workload",
        type=_schema_workload,
        metavar="{" + ",".join(SCHEMA_WORKLOADS) + "}",
        help="the old name of --workload: singers, tweets, leaderboard",
    )
    parser.set_defaults(**{k.dest: None for k in all_knobs})


def _schema_workload(text: str) -> Workload:
    try:
        return SCHEMA_WORKLOADS[text]
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a schema ({', '.join(SCHEMA_WORKLOADS)}); see --workload"
        ) from None


def overrides_from(args: argparse.Namespace) -> dict[str, Any]:
    """Nested config overrides from the knob flags that were given."""
    out: dict[str, Any] = {}
    for knob in knobs():
        value = getattr(args, knob.dest, None)
        if value is None:
            continue
        node = out
        for key in knob.path[:-1]:
            node = node.setdefault(key, {})
        node[knob.path[-1]] = value
    return out
