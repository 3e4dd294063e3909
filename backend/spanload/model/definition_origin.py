"""Where a run's workload definition came from: a built-in file, or a saved definition's version.

The definition itself is ``config.definition`` (the exact one the run ran); this names its source,
so that a run reads "my_shop, version 2" and can be traced back to the saved text. A config without
it (runs from before it, and definitions sent inline) loads as before.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

DefinitionName = Annotated[str, Field(min_length=1, max_length=100)]


class OriginKind(StrEnum):
    BUILTIN = "builtin"  # a file of workloads/
    SAVED = "saved"  # saved in the run store, with versions


class DefinitionOrigin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Leaf names no other config field has: the command line's flags are generated from them.
    source: OriginKind = Field(description="builtin: a file of workloads/; saved: saved in the run store")
    definition: DefinitionName = Field(description="the definition's name")
    saved_version: Annotated[int, Field(ge=1)] | None = Field(
        default=None, description="the saved definition's version (1, 2, ...); none for a built-in"
    )

    @model_validator(mode="after")
    def _version_is_saved(self) -> Self:
        if (self.source is OriginKind.SAVED) != (self.saved_version is not None):
            raise ValueError("definition_origin.saved_version: a saved definition has a version, a built-in none")
        return self
