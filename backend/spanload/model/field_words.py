"""The words a run-level setting is shown with, said once beside the field they name.

A field of the run config that the UI shows carries its label, its chart-marker short form and its
unit in its pydantic metadata: ``Field(..., json_schema_extra=words("Poll interval", "poll", "ms"))``.
They reach the OpenAPI schema as the specification extensions ``x-label``, ``x-short`` and
``x-unit`` (OpenAPI 3.1 passes ``x-`` keys of a schema object through), and the frontend reads them
from there (frontend/src/lib/knobs.ts keeps only where each field appears). The help is the field's
``description``. A workload definition's knobs carry their own words (model/workload.py ``Knob``).
"""

from __future__ import annotations

from pydantic import JsonValue

LABEL, SHORT, UNIT = "x-label", "x-short", "x-unit"


def words(label: str, short: str, unit: str = "") -> dict[str, JsonValue]:
    """A field's label (``Poll interval``), its few characters for chart markers (``poll``) and its
    unit (``ms``; empty for a field without one), as ``json_schema_extra``."""
    if not label or not short:
        raise ValueError("a field's words need a label and a short form")
    out: dict[str, JsonValue] = {LABEL: label, SHORT: short}
    if unit:
        out[UNIT] = unit
    return out
