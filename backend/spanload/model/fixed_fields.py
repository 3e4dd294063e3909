"""A live patch that names a field fixed for the run is refused by that field's name, saying it is
fixed and why, not with pydantic's "extra inputs are not permitted".

The error carries the dotted field (relative to the patch section it was found in) in its context
(``ctx.field``), which the API's 422 puts in ``field`` after the section's own path
(``client`` + ``interface``). A definition's ``watch.mode`` (poll or change_stream) is named as such:
the definition is fixed for the run; a watch whose mode is a knob switches live through that knob.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import PydanticCustomError

FIXED_FOR_RUN = "fixed_for_run"  # the error's type

WATCH_MODE = "definition.watch.mode"
WHY: dict[str, str] = {
    WATCH_MODE: "the definition is fixed for the run, its watch's mode with it; a watch whose mode is a knob "
    "(watch.mode: $name, a string knob with choices poll and change_stream) switches live when that knob is "
    "patched (knobs.<name>), as workloads/change_watcher.yaml's watch_mode",
}
DEFAULT_WHY = "it is chosen when the run starts; start a new run to change it"


def named(name: str, value: Any) -> str:
    """The dotted field a patch's fixed ``name`` changes: ``definition.watch.mode`` when a definition
    patch touches the watch's mode, else ``name`` itself."""
    if name == "definition" and isinstance(value, dict):
        watch = value.get("watch")
        if isinstance(watch, dict) and "mode" in watch:
            return WATCH_MODE
    return name


def refuse_fixed(fixed: frozenset[str], data: Any) -> Any:
    """``data`` as given, unless it sets one of ``fixed``: then the error naming the first one."""
    if not isinstance(data, dict):
        return data
    for name in sorted(fixed & data.keys()):
        field = named(name, data[name])
        raise PydanticCustomError(
            FIXED_FOR_RUN,
            "{field} is fixed for the run: {why}",
            {"field": field, "why": WHY.get(field, DEFAULT_WHY)},
        )
    return data
