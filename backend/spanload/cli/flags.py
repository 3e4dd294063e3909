"""The knob flags of `spanload run`, generated from the run config's fields: one Typer option per
field, its type, choices, help and bounds taken from the field (the same Annotated aliases the API's
schema shows), in a help panel per config section. Short names the command line had before keep
working as aliases."""

from __future__ import annotations

import inspect
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, get_args, get_origin

import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from spanload.cli.params import choice
from spanload.model.config import SCHEMA_WORKLOADS, RunConfig, Workload

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s|m|h)?\s*$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}

# `--preset` picks the base config instead; `--ray ADDRESS` (placement.address) implies placement.kind;
# a definition comes from `--workload-file`, its knobs from `--set name=value`; a profile from `--stages`,
# abort rules from `--abort-on`; which saved definition a run came from is the API's record, no knob
NOT_FLAGS = frozenset(
    {
        "preset",
        "placement.kind",
        "definition",
        "definition_origin",
        "knobs",
        "operations",
        "profile",
        "abort_on",
        "capacity",
    }
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
        raise ValueError(f"{text!r} is not a duration such as 60s, 2m, 1h or 500ms")
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
    def param(self) -> str:
        """The command function's parameter (and the parsed values' key) for this knob."""
        return "knob__" + "__".join(self.path)

    @property
    def kind(self) -> Any:
        members = [a for a in get_args(self.field.annotation) if a is not type(None)]
        kind = members[0] if members else self.field.annotation
        return get_args(kind)[0] if get_origin(kind) is Annotated else kind


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


# What a duration flag's parser reads: the field itself (and the UI's number box) takes a number
_EXAMPLES = {"DURATION": "e.g. 60s, 2m, 1h", "MS": "e.g. 1s or 500ms"}


def _help(knob: Knob) -> str:
    text = knob.field.description or knob.path[-1].replace("_", " ")
    if example := _EXAMPLES.get(_converter(knob)[1]):
        text = f"{text}; {example}"
    notes = [b] if (b := _bounds(knob.field)) else []
    default = None if knob.field.is_required() else knob.field.get_default(call_default_factory=True)
    if default is not None and not isinstance(default, bool):
        notes.append(f"default {default.value if isinstance(default, Enum) else default}")
    return f"{text} ({'; '.join(notes)})" if notes else text


def _converter(knob: Knob) -> tuple[Callable[[str], Any] | None, str]:
    """How a flag's text becomes the field's value (None: the field's type, as Typer reads it), and
    the metavar that says so."""
    name = knob.path[-1]
    if name.endswith("_ms"):
        return parse_ms, "MS"
    if name.endswith("_s"):
        return parse_duration, "DURATION"
    return None, {int: "N", float: "X"}.get(knob.kind, "TEXT")


def _names(knob: Knob, leaf_count: Counter[str]) -> tuple[str, list[str]]:
    """The knob's flag and the names it answers to (an older alias first, so errors name it)."""
    bare = (leaf_count[knob.path[-1]] == 1 or knob.dotted in KEEP_BARE) and knob.dotted not in QUALIFIED
    leaf = knob.path[-1] if bare else "-".join(knob.path)
    flag = "--" + leaf.replace("_", "-")
    return flag, [ALIASES[knob.dotted], flag] if knob.dotted in ALIASES else [flag]


def _option(knob: Knob, leaf_count: Counter[str]) -> Any:
    """The knob's ``Annotated[type, typer.Option(...)]``."""
    section = knob.path[0] if len(knob.path) > 1 else "run"
    flag, names = _names(knob, leaf_count)
    if knob.kind is bool:
        decls = [f"{flag}/--no-{flag[2:]}"]
        switch, value = SWITCHES.get(knob.dotted, (None, None))
        if switch is not None and switch != "--no-" + flag[2:]:
            decls.append(switch if value else " /" + switch)  # " /--no-x": a second name for off
        return Annotated[bool | None, typer.Option(*decls, help=_help(knob), rich_help_panel=section)]
    if isinstance(knob.kind, type) and issubclass(knob.kind, Enum):
        values = [e.value for e in knob.kind]
        return Annotated[str | None, typer.Option(*names, help=_help(knob), rich_help_panel=section, **choice(values))]
    convert, metavar = _converter(knob)
    if convert is not None:
        return Annotated[
            Any, typer.Option(*names, help=_help(knob), rich_help_panel=section, parser=convert, metavar=metavar)
        ]
    return Annotated[knob.kind | None, typer.Option(*names, help=_help(knob), rich_help_panel=section, metavar=metavar)]


SCHEMA_PARAM = "knob__schema_alias"


def knob_parameters() -> list[inspect.Parameter]:
    """A keyword parameter for every knob of the run config, for the run command's generated
    signature (Typer reads options from a signature), then ``--schema``, the old ``--workload``."""
    all_knobs = list(knobs())
    leaf_count = Counter(k.path[-1] for k in all_knobs)
    keyword = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter(k.param, keyword, default=None, annotation=_option(k, leaf_count)) for k in all_knobs]
    schema = typer.Option(
        "--schema",
        parser=_schema_workload,
        metavar="{" + ",".join(SCHEMA_WORKLOADS) + "}",
        help="the old name of --workload: singers, tweets, leaderboard",
        rich_help_panel="run",
    )
    return [*params, inspect.Parameter(SCHEMA_PARAM, keyword, default=None, annotation=Annotated[Any, schema])]


def _schema_workload(text: str) -> Workload:
    try:
        return SCHEMA_WORKLOADS[text]
    except KeyError:
        raise ValueError(f"{text!r} is not a schema ({', '.join(SCHEMA_WORKLOADS)}); see --workload") from None


def overrides_from(args: Any) -> dict[str, Any]:
    """Nested config overrides from the knob flags that were given (``args``: the parsed values,
    as attributes named by :attr:`Knob.param`)."""
    out: dict[str, Any] = {}
    schema = getattr(args, SCHEMA_PARAM, None)
    if schema is not None:
        out["workload"] = schema.value
    for knob in knobs():
        value = getattr(args, knob.param, None)
        if value is None:
            continue
        node = out
        for key in knob.path[:-1]:
            node = node.setdefault(key, {})
        node[knob.path[-1]] = value
    return out
