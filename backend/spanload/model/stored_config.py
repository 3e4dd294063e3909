"""A run's config as the store holds it, read by this version of Spanload.

A stored config was valid when its run started, but a later version may read fewer fields, or
tighter bounds, than the version that wrote it. One such run must not take the runs list, compare
or export down with it: the fields this version cannot read are left out, one at a time as the
validator names them, and what was left out is said (``problem``), so a page can show it."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from spanload.model.config import RunConfig

_MAX_ROUNDS = 8


@dataclass(frozen=True)
class StoredConfig:
    config: RunConfig
    problem: str | None = None


def _drop(body: Any, loc: tuple[int | str, ...]) -> bool:
    """Remove the value at ``loc`` (the nearest key of a mapping on its path); False when none is there."""
    parents: list[tuple[Any, int | str]] = []
    node = body
    for part in loc:
        held = isinstance(node, dict) and part in node
        listed = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if held or listed:
            parents.append((node, part))
            node = node[part]
        else:
            break
    for container, key in reversed(parents):
        if isinstance(container, dict):
            del container[key]
            return True
    return False


def read_stored(raw: dict[str, Any]) -> StoredConfig:
    """The config of ``raw``; the fields this version cannot read left out and named in ``problem``.
    A config none of whose fields can be kept reads as the defaults, with its name."""
    try:
        return StoredConfig(RunConfig.model_validate(raw))
    except ValidationError as first:
        errors = first.errors()
    body = copy.deepcopy(raw)
    dropped: list[str] = []
    for _ in range(_MAX_ROUNDS):
        for err in errors:
            loc = tuple(p for p in err["loc"] if isinstance(p, int | str))
            if _drop(body, loc):
                dropped.append(f"{'.'.join(str(p) for p in loc) or '(config)'}: {err['msg']}")
        try:
            config = RunConfig.model_validate(body)
            break
        except ValidationError as again:
            errors = again.errors()
    else:
        name = raw.get("name") if isinstance(raw.get("name"), str) else None
        config = RunConfig.model_validate({"name": name} if name else {})
        dropped.append("(config): unreadable, shown as the defaults")
    return StoredConfig(config, "this version of Spanload cannot read part of the stored config: " + "; ".join(dropped))
