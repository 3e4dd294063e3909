"""The built-in workload definitions: the ``*.yaml`` files of ``settings.workloads_dir``
(``workloads/`` in the repository), each named by its ``name``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from spanload.model.errors import RunNotFound
from spanload.model.workload import WorkloadDefinition
from spanload.model.workload_file import parse_definition


class UnknownWorkload(RunNotFound):
    """No built-in definition by that name; ``str()`` lists the names there are."""


@dataclass(frozen=True)
class BuiltinWorkload:
    name: str
    path: Path
    source: str
    definition: WorkloadDefinition


def builtin_workloads(directory: Path) -> dict[str, BuiltinWorkload]:
    """Every definition file of ``directory``, by name, in file-name order. A broken file raises
    :class:`~spanload.model.workload_file.DefinitionInvalid` naming it: a shipped file must parse."""
    out: dict[str, BuiltinWorkload] = {}
    for path in sorted(directory.glob("*.yaml")):
        source = path.read_text()
        definition = parse_definition(source, path.name)
        out[definition.name] = BuiltinWorkload(definition.name, path, source, definition)
    return out


def builtin_workload(directory: Path, name: str) -> BuiltinWorkload:
    workloads = builtin_workloads(directory)
    try:
        return workloads[name]
    except KeyError:
        raise UnknownWorkload(
            f"no workload definition named {name!r} (built-in: {', '.join(workloads) or 'none'})", "workload"
        ) from None
