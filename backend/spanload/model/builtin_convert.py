"""A report workload's config (``workload: change_watcher | write_benchmark | session_pool |
participants`` with the fixed ``updater``/``watcher``/``reader``/``preload`` sections) as the run of
its built-in definition (``workloads/<name>.yaml``) that the interpreters execute. The pre-start
check (engine/placement.py ``check_start``) applies it, so a new run's stored config is the
definition it ran, and no worker runs anything but a definition or TPC-C. Old saved runs are never
converted: they load, list, export and compare as saved.

The sections become the definition's knobs and operations through model/builtin_knobs.py (the one
field -> knob table). A field the definition has no knob for is refused only when it differs from
its default (its default is what the definition does anyway); ``watcher.shard_filter`` becomes the
watch's ``filter``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from spanload.model.builtin_knobs import (
    LEGACY_KNOBS,
    LEGACY_OPERATIONS,
    LEGACY_SECTIONS,
    ToKnob,
    legacy_figures,
    translate,
)
from spanload.model.config import RunConfig, ShardFilter, Workload
from spanload.model.definition_origin import DefinitionOrigin, OriginKind
from spanload.model.errors import RunInvalid
from spanload.model.pacing import resolve
from spanload.model.workload import WorkloadDefinition
from spanload.model.workload_file import parse_definition

BUILTIN_WORKLOADS = Path(__file__).resolve().parents[3] / "workloads"

# watcher.shard_filter -> the watch's filter instead of its shards (fixed: the definition's own 37
# shard values; not_null: the shard column IS NOT NULL; none: no filter, the forced index read whole)
NOT_NULL = "{column} IS NOT NULL"


def builtin_definition(name: str) -> WorkloadDefinition:
    """The built-in definition ``workloads/<name>.yaml`` of the repository (a copy of its own)."""
    return _parsed_builtin(name).model_copy(deep=True)


@cache
def _parsed_builtin(name: str) -> WorkloadDefinition:
    """Each file parsed once per process: the presets take 28 definitions from 6 files, and parsing
    them all again cost every process that imports the presets 0.3 s of CPU."""
    path = BUILTIN_WORKLOADS / f"{name}.yaml"
    return parse_definition(path.read_text(), path.name)


def _section_fields(config: RunConfig, name: str) -> dict[str, dict[str, Any]]:
    """The legacy sections' fields to translate: every field the definition maps to a knob of its
    own or to its operations (its value is the run's, default or not), the others only where they
    differ from their default. A default the definition has no counterpart for (participants' mode
    ``mutations``, session_pool's query ``point``) or a knob several defaults map to (session_pool's
    ``agents``) is left to the definition."""
    table = LEGACY_KNOBS[name]
    groups = LEGACY_OPERATIONS[name]
    knob_of = {f: t.knob for f, t in table.items() if isinstance(t, ToKnob)}
    shared = {k for k in knob_of.values() if list(knob_of.values()).count(k) > 1}
    choices = {g.choose: g.by_value for g in groups}
    mapped = (set(table) - {f for f, k in knob_of.items() if k in shared}) | {g.switch for g in groups} | set(choices)
    out: dict[str, dict[str, Any]] = {}
    for section in LEGACY_SECTIONS:
        body = getattr(config, section)
        default = type(body)()
        fields = {}
        for field in type(body).model_fields:
            dotted = f"{section}.{field}"
            value = getattr(body, field)
            is_default = value == getattr(default, field)
            value = getattr(value, "value", value)
            if dotted == "watcher.shard_filter" or (is_default and value not in choices.get(dotted, (value,))):
                continue
            if dotted in mapped or not is_default:
                fields[field] = value
        out[section] = fields
    return out


def _watch_filter(config: RunConfig, definition: dict[str, Any]) -> None:
    """``watcher.shard_filter`` on a built-in definition's watch of a sharded table: ``fixed`` keeps
    its shard values, ``not_null`` and ``none`` poll every row with one poller (they need 1 watcher),
    the filter naming the definition's own shard column (ShardId, or shard_id on a PostgreSQL twin)."""
    shard = config.watcher.shard_filter
    watch = definition.get("watch")
    if shard is ShardFilter.FIXED or watch is None or watch.get("shards") is None:
        return
    column = watch["shards"]["column"]
    plain = {k: v for k, v in watch.items() if k != "shards"}
    definition["watch"] = {**plain, "filter": NOT_NULL.format(column=column) if shard is ShardFilter.NOT_NULL else None}


def as_definition(config: RunConfig) -> RunConfig:
    """``config`` as a run of its report workload's built-in definition; any other config (TPC-C,
    a definition already) unchanged. Raises :class:`RunInvalid` naming a field the definition
    cannot take."""
    if config.workload in (Workload.TPCC, Workload.DEFINITION):
        return config
    name = config.workload.value
    definition = builtin_definition(name).model_dump(mode="json", exclude_unset=True)
    _watch_filter(config, definition)
    body = config.model_dump(mode="json", by_alias=True, exclude={"schema", *LEGACY_SECTIONS})
    body.update(workload=Workload.DEFINITION.value, definition=definition)
    body["definition_origin"] = DefinitionOrigin(source=OriginKind.BUILTIN, definition=name).model_dump(mode="json")
    # a profile or capacity search drove the updater's rate: now its operation's (translate)
    body = translate(name, {**body, **_section_fields(config, name)})
    try:
        return RunConfig.model_validate(body)
    except ValueError as err:  # a translated value out of its knob's bounds
        raise RunInvalid(f"workload {name!r} as workloads/{name}.yaml: {err}", "workload") from None


def legacy_names(config: RunConfig) -> dict[str, str]:
    """Legacy figure name -> the figure of ``config``'s run that answers to it: the updater's and
    reader's figures on a run of a built-in definition; none otherwise."""
    origin, definition = config.definition_origin, config.definition
    if definition is None or origin is None or origin.source is not OriginKind.BUILTIN:
        return {}
    knobs = config.knob_values()
    enabled = {op for op in definition.operations if resolve(definition, op, knobs, config.operations.get(op)).enabled}
    return legacy_figures(origin.definition, enabled)
