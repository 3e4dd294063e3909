"""The words of a run-level setting are the backend's: every field the UI shows has its label, and
each unit agrees with the field's name and help."""

from __future__ import annotations

import re
from pathlib import Path
from types import UnionType
from typing import Any, Union, get_args, get_origin

import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from spanload.model.config import RunConfig
from spanload.model.field_words import LABEL, SHORT, UNIT, words
from spanload.model.pacing import OperationPacing

KNOBS_TS = Path(__file__).resolve().parents[2] / "frontend" / "src" / "lib" / "knobs.ts"


def _layout_paths() -> list[str]:
    """The paths of the run-level fields the UI shows (knobs.ts's KNOB_LAYOUT)."""
    text = KNOBS_TS.read_text()
    block = text[text.index("export const KNOB_LAYOUT") :]
    block = block[: block.index("];")]
    return re.findall(r'\{ path: "([a-z_.]+)", section:', block)


def _model_of(info: FieldInfo) -> type[BaseModel] | None:
    annotation = info.annotation
    members = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else (annotation,)
    models = [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]
    return models[0] if len(models) == 1 else None


def _field(path: str) -> FieldInfo:
    model: type[BaseModel] | None = RunConfig
    *sections, name = path.split(".")
    for section in sections:
        assert model is not None and section in model.model_fields, f"{path}: no section {section}"
        model = _model_of(model.model_fields[section])
    assert model is not None and name in model.model_fields, f"{path} is not a RunConfig field"
    return model.model_fields[name]


def _words(info: FieldInfo) -> dict[str, Any]:
    extra = info.json_schema_extra
    return dict(extra) if isinstance(extra, dict) else {}


def _worded_fields() -> list[tuple[str, FieldInfo]]:
    """Every field of RunConfig's models (and a definition's pacing) that has words."""
    out: list[tuple[str, FieldInfo]] = []
    seen: set[type[BaseModel]] = set()

    def walk(model: type[BaseModel], prefix: str) -> None:
        if model in seen:
            return
        seen.add(model)
        for name, info in model.model_fields.items():
            if _words(info):
                out.append((f"{prefix}{name}", info))
            inner = _model_of(info)
            if inner is not None:
                walk(inner, f"{prefix}{name}.")

    walk(RunConfig, "")
    walk(OperationPacing, "operations.<op>.")
    return out


def test_the_ui_shows_44_run_level_fields() -> None:
    paths = _layout_paths()
    assert len(paths) == 44  # warmup_s (issue 24) after duration_s
    assert paths[:3] == ["name", "duration_s", "warmup_s"] and paths[-1] == "client.timeout_ms"


@pytest.mark.parametrize("path", _layout_paths())
def test_every_field_the_ui_shows_has_its_words(path: str) -> None:
    extra = _words(_field(path))
    assert extra.get(LABEL), f"{path} has no label: give it json_schema_extra=words(...) in model/config.py"
    assert extra.get(SHORT), f"{path} has no short form for chart markers"


def test_words_of_a_known_field() -> None:
    assert _words(_field("watcher.poll_interval_ms")) == {LABEL: "Poll interval", SHORT: "poll", UNIT: "ms"}
    assert _words(_field("workload")) == {LABEL: "Workload", SHORT: "workload"}
    assert _words(_field("warmup_s")) == {LABEL: "Warm-up", SHORT: "warmup", UNIT: "s"}
    schema = RunConfig.model_json_schema()
    reader = schema["$defs"]["ReaderConfig"]["properties"]["think_time_ms"]
    assert (reader["x-label"], reader["x-short"], reader["x-unit"]) == ("Think time", "think", "ms")


def _expected_unit(name: str, description: str) -> str | None:
    """The unit a field's name or help commits it to, or None when they do not say."""
    if name.endswith("_ms"):
        return "ms"
    if name.endswith("_s"):
        return "s"
    if name.endswith(("_per_second", "rate")) or "per second" in description:
        return "/s"
    if "in flight" in description or "running at most" in description:
        return "in flight"
    return None


@pytest.mark.parametrize("path, info", [pytest.param(p, i, id=p) for p, i in _worded_fields()])
def test_units_agree_with_the_field_name_and_help(path: str, info: FieldInfo) -> None:
    unit = _words(info).get(UNIT, "")
    description = info.description or ""
    expected = _expected_unit(path.rsplit(".", 1)[-1], description)
    if expected == "/s":
        assert unit.endswith("/s"), f"{path} is per second; its unit {unit!r} is not"
    elif expected == "in flight":  # or what its help counts: tpcc.terminals is "terminals (closed), or ..."
        assert unit == expected or (unit and unit in description), f"{path}: unit {unit!r}, help {description!r}"
    elif expected is not None:
        assert unit == expected, f"{path}: unit {unit!r}, but its name or help says {expected!r}"


def test_the_unit_check_catches_a_wrong_unit() -> None:
    assert _expected_unit("poll_interval_ms", "") == "ms"
    assert _expected_unit("transactions_per_second", "") == "/s"
    assert _expected_unit("parallelism", "transactions in flight at most") == "in flight"
    assert _expected_unit("limit", "rows per poll") is None


def test_words_need_a_label_and_a_short_form() -> None:
    assert words("Row limit", "limit", "rows") == {LABEL: "Row limit", SHORT: "limit", UNIT: "rows"}
    with pytest.raises(ValueError, match="need a label and a short form"):
        words("", "limit")
