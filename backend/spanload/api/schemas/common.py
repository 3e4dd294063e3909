"""Validators shared by the request models."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, StringConstraints


def no_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


def reject_nul(value: Any, where: str = "body") -> None:
    """Raise ValueError naming the place of the first string holding a NUL character."""
    if isinstance(value, str):
        no_nul(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            reject_nul(key, where)
            reject_nul(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            reject_nul(item, f"{where}[{i}]")


Text = Annotated[str, AfterValidator(no_nul)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True), AfterValidator(no_nul)]
Tag = Annotated[str, StringConstraints(min_length=1, max_length=50, strip_whitespace=True), AfterValidator(no_nul)]
