"""A GoogleSQL built-in's run asked for on a PostgreSQL interface runs its PostgreSQL twin (issue 24).

``spanload run --preset light-poll --interface pgadapter``, the same through ``POST /api/runs`` and
the New run page: the preset's definition is ``workloads/change_watcher.yaml``, which a PostgreSQL
interface cannot run, so the run takes ``workloads/change_watcher_pg.yaml`` instead, with the
preset's knobs, operations and watch changes (a twin has exactly its original's knobs and
operations, tests/engine/test_builtin_definitions.py), on a database of its own: a GoogleSQL
database cannot be opened as a PostgreSQL one. :func:`for_interface` is the one rule;
presets.make_config applies it to the base config before the request's overrides.
"""

from __future__ import annotations

import re
from typing import Any

from spanload.model.builtin_convert import BUILTIN_WORKLOADS, as_definition, builtin_definition
from spanload.model.config import PG_DATABASE_SUFFIX, PG_INTERFACES, ClientInterface, RunConfig, Workload
from spanload.model.definition_origin import OriginKind
from spanload.model.errors import RunInvalid
from spanload.model.workload import Dialect, Watch, WorkloadDefinition

MAX_DATABASE_ID = 30  # Spanner's limit on a database id
# the watch's fields that name tables, columns, indexes or streams: the twin has its own names there
WATCH_NAMES = frozenset({"table", "timestamp", "index", "filter", "key", "stream", "versions", "shards"})
FIELD = "client.interface"


def pg_database(database: str) -> str:
    """The PostgreSQL-dialect database beside GoogleSQL ``database`` (spanload -> spanload-pg)."""
    return database + PG_DATABASE_SUFFIX


def twin_name(name: str) -> str:
    """The PostgreSQL twin of built-in ``name``: ``workloads/<name>_pg.yaml``."""
    return f"{name}_pg"


def for_interface(base: RunConfig, overrides: dict[str, Any], prefix: str = "") -> RunConfig:
    """``base`` as the run ``overrides``' ``client.interface`` asks for: a GoogleSQL built-in's run
    (a report workload's config too, as its built-in definition's) becomes its PostgreSQL twin's
    run when that interface is ``postgresql`` or ``pgadapter``, on ``<database>-pg``; any other
    config unchanged. Raises :class:`RunInvalid` naming ``client.interface`` when there is no twin
    or the definition was changed in a way the twin cannot take."""
    interface = _interface(base, overrides)
    if interface not in PG_INTERFACES or "definition" in overrides or base.workload is Workload.TPCC:
        return base
    if base.definition is None:  # a report workload's fixed sections: its built-in definition first
        base = as_definition(base)
    definition, origin = base.definition, base.definition_origin
    if definition is None or definition.dialect is Dialect.POSTGRESQL:
        return base
    if origin is None or origin.source is not OriginKind.BUILTIN:
        return base  # a user's GoogleSQL definition: the config's own check refuses it, naming the field
    twin = _twin_definition(definition, origin.definition, interface, prefix)
    target = overrides.get("target")
    given = target.get("database") if isinstance(target, dict) else None
    database = given or pg_database(base.target.database)  # a database the request names is its own
    if len(database) > MAX_DATABASE_ID:
        raise RunInvalid(
            f"{prefix}target.database: {database!r}, the PostgreSQL twin's database for {interface.value}, is longer "
            f"than Spanner's {MAX_DATABASE_ID} characters; name a PostgreSQL-dialect database with target.database",
            "target.database",
        )
    body = base.model_dump(mode="json", by_alias=True)
    body["definition"] = twin.model_dump(mode="json", exclude_unset=True)
    body["definition_origin"] = {"source": OriginKind.BUILTIN.value, "definition": twin.name}
    body["client"]["interface"] = interface.value
    body["target"]["database"] = database
    return RunConfig.model_validate(body)


def _interface(base: RunConfig, overrides: dict[str, Any]) -> ClientInterface:
    client = overrides.get("client")
    given = client.get("interface") if isinstance(client, dict) else None
    try:
        return ClientInterface(given) if given is not None else base.client.interface
    except ValueError:
        return base.client.interface  # not an interface: the config's own validation names it


def _twin_definition(
    definition: WorkloadDefinition, name: str, interface: ClientInterface, prefix: str
) -> WorkloadDefinition:
    """The twin of built-in ``name`` with ``definition``'s changes to its original (a preset's watch
    mode, a shard filter) made in the twin's names."""
    if not (BUILTIN_WORKLOADS / f"{twin_name(name)}.yaml").is_file():
        raise RunInvalid(
            f"{prefix}{FIELD}: '{interface.value}' runs PostgreSQL-dialect definitions, and the built-in "
            f"{name!r} has no PostgreSQL twin (workloads/{twin_name(name)}.yaml); run it with {FIELD} 'googlesql'",
            FIELD,
        )
    original, twin = builtin_definition(name), builtin_definition(twin_name(name))
    if definition.model_dump(exclude={"watch"}) != original.model_dump(exclude={"watch"}):
        raise RunInvalid(
            f"{prefix}{FIELD}: '{interface.value}' would run workloads/{twin_name(name)}.yaml, but this run's "
            f"definition {name!r} is changed from workloads/{name}.yaml beyond its watch; run the changed "
            f"definition with {FIELD} 'googlesql', or write its PostgreSQL version as a definition of its own",
            FIELD,
        )
    if definition.watch is None or original.watch is None or twin.watch is None:
        return twin
    watch = _twin_watch(definition.watch, original.watch, twin.watch, interface, prefix)
    return twin.model_copy(update={"watch": watch})


def _twin_watch(watch: Watch, original: Watch, twin: Watch, interface: ClientInterface, prefix: str) -> Watch:
    """``twin`` with ``watch``'s fields that differ from ``original``: the dialect-neutral ones as
    they are; a dropped shard split or versions dropped; a filter in the twin's column names."""
    changed = {f for f in Watch.model_fields if getattr(watch, f) != getattr(original, f)}
    update: dict[str, Any] = {f: getattr(watch, f) for f in changed - WATCH_NAMES}
    for part in ("shards", "versions"):
        if part in changed and getattr(watch, part) is None:
            update[part] = None
    if "filter" in changed:
        update["filter"] = watch.filter and _renamed(watch.filter, _names(original, twin))
    refused = sorted(changed - set(update))
    if refused:
        raise RunInvalid(
            f"{prefix}{FIELD}: '{interface.value}' would run the PostgreSQL twin, which cannot take this run's "
            f"changed watch.{', watch.'.join(refused)} (names of the GoogleSQL schema); "
            f"run it with {FIELD} 'googlesql'",
            FIELD,
        )
    return Watch.model_validate({**twin.model_dump(exclude_unset=True), **update})


def _names(original: Watch, twin: Watch) -> dict[str, str]:
    """GoogleSQL name -> the twin's name, for every table, column, index and stream the two watches name."""
    out: dict[str, str] = {}

    def pair(a: Any, b: Any) -> None:
        if isinstance(a, str) and isinstance(b, str):
            out[a] = b
        elif isinstance(a, dict) and isinstance(b, dict):
            for k in a.keys() & b.keys():
                pair(a[k], b[k])
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for x, y in zip(a, b, strict=True):
                pair(x, y)

    names = set(WATCH_NAMES) - {"filter"}
    pair(original.model_dump(include=names), twin.model_dump(include=names))
    return out


def _renamed(sql: str, names: dict[str, str]) -> str:
    """``sql`` with each whole-word name of ``names`` replaced (``ShardId IS NOT NULL`` -> ``shard_id IS NOT NULL``)."""
    if not names:
        return sql
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: names[m.group(1)], sql)
