"""The fields a run changed live, from its start config and its timeline: what every view that shows
a config (the detail page, compare's diff, the runs list's badge) says about them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from spanload.control.compare import current_form, flatten_config
from spanload.model.events import EventKind
from spanload.model.live import LiveChange, LiveChangeStep


class _Event(Protocol):
    kind: Any
    elapsed_s: float
    changes: dict[str, Any]


def live_changes(config: dict[str, Any], events: Iterable[_Event]) -> list[LiveChange]:
    """Each field the run's config-change events touched, in the order first changed, with its value
    at start (the stored start config), at the end (its last change) and every change's time."""
    start = flatten_config(current_form(config))
    out: dict[str, LiveChange] = {}
    for event in events:
        if EventKind(event.kind) is not EventKind.CONFIG_CHANGE:
            continue
        for field, value in event.changes.items():
            change = out.setdefault(field, LiveChange(field=field, at_start=start.get(field), at_end=value, steps=[]))
            change.steps.append(LiveChangeStep(elapsed_s=event.elapsed_s, value=value))
            change.at_end = value
    return list(out.values())
