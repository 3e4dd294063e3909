"""A run started by a definition's name (``definition_name``, ``definition_version``): the built-in
file of that name, else the saved definition at that version (its latest by default). The run's
config gets the definition itself and where it came from (``definition_origin``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from spanload.model.definition_origin import DefinitionOrigin, OriginKind
from spanload.model.errors import RunInvalid
from spanload.model.settings import Settings
from spanload.model.workload import WorkloadDefinition
from spanload.model.workload_file import DefinitionInvalid, parse_definition
from spanload.model.workload_library import UnknownWorkload, builtin_workloads
from spanload.store import definitions as saved_store


def definition_overrides(
    settings: Settings, sessions: sessionmaker[Session], name: str, version: int | None
) -> dict[str, Any]:
    """The config overrides that run definition ``name`` (at ``version``, when saved). Raises
    :class:`UnknownWorkload` (404) naming the field when there is no such definition or version."""
    definition, origin = _resolve(settings, sessions, name, version)
    return {
        "workload": "definition",
        "definition": definition.model_dump(mode="json"),
        "definition_origin": origin.model_dump(mode="json"),
    }


def _resolve(
    settings: Settings, sessions: sessionmaker[Session], name: str, version: int | None
) -> tuple[WorkloadDefinition, DefinitionOrigin]:
    builtins = builtin_workloads(settings.workloads_dir)
    if name in builtins:
        if version is not None:
            raise RunInvalid(
                f"definition_version: {name!r} is a built-in definition, which has no versions", "definition_version"
            )
        return builtins[name].definition, DefinitionOrigin(source=OriginKind.BUILTIN, definition=name)
    with sessions() as session:
        latest = saved_store.latest_definition(session, name)
        row = None
        if latest is not None:
            row = latest.row if version is None else saved_store.definition_version(session, name, version)
    if latest is None:
        raise UnknownWorkload(
            f"no workload definition named {name!r} (built-in: {', '.join(builtins) or 'none'}; "
            "none saved by that name)",
            "definition_name",
        )
    if row is None:
        raise UnknownWorkload(
            f"no version {version} of saved definition {name!r}: it has versions 1 to {latest.versions}",
            "definition_version",
        )
    try:
        definition = parse_definition(row.source, f"{name} v{row.version}")
    except DefinitionInvalid as err:
        raise RunInvalid(
            f"definition_name: {name} version {row.version} no longer reads as a definition ({err}): "
            "open it in the editor, fix it and save it again",
            "definition_name",
        ) from None
    return definition, DefinitionOrigin(source=OriginKind.SAVED, definition=name, saved_version=row.version)
