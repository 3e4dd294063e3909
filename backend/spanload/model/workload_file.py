"""Reading a workload definition file (YAML, or JSON, which YAML reads too) with every problem placed
on its line and column.

:func:`parse_definition` returns the :class:`WorkloadDefinition` or raises :class:`DefinitionInvalid`,
whose ``problems`` each name the file's line and column, the field's dotted path and one sentence.
The same problems come back from the API as a 422 list and from the CLI as exit 2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from spanload.model.errors import RunInvalid
from spanload.model.workload import WorkloadDefinition

Path = tuple[str | int, ...]
_LEADING_PATH = re.compile(r"^([A-Za-z_][\w]*(?:\.[\w]+)+): ")


class DefinitionProblem(BaseModel):
    """One thing wrong with a definition, where it is."""

    path: str = ""
    line: int | None = None
    column: int | None = None
    message: str
    statement: str | None = None

    def __str__(self) -> str:
        where = f"line {self.line}, column {self.column}: " if self.line is not None else ""
        what = f"{self.path}: " if self.path else ""
        sql = f" [{self.statement}]" if self.statement else ""
        return f"{where}{what}{self.message}{sql}"


class DefinitionInvalid(RunInvalid):
    """A definition that cannot run; ``problems`` lists every problem found, each placed."""

    def __init__(self, problems: list[DefinitionProblem], source: str = "definition") -> None:
        self.problems = problems
        head = f"{source}: {len(problems)} problem{'s' if len(problems) != 1 else ''}"
        super().__init__(head + "\n" + "\n".join(f"  {p}" for p in problems), problems[0].path or None)


@dataclass
class Positions:
    """Where each node of a parsed file starts: path -> (line, column), both 1-based."""

    at: dict[Path, tuple[int, int]]

    def find(self, data: Any, loc: Path) -> tuple[Path, tuple[int, int] | None]:
        """The deepest node along ``loc`` that exists in ``data`` (pydantic's locations also hold
        union tags, which are skipped), and its position."""
        path: Path = ()
        node = data
        for part in loc:
            child = _child(node, part)
            if child is not _MISSING:
                node = child
                path = (*path, part)
        return path, self.at.get(path)

    def resolve(self, data: Any, dotted: str) -> tuple[Path, tuple[int, int] | None]:
        parts: list[str | int] = [int(p) if p.isdigit() else p for p in dotted.split(".")]
        return self.find(data, tuple(parts))


_MISSING = object()
_YAML_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def _child(node: Any, part: str | int) -> Any:
    if isinstance(node, dict):
        return node.get(part, _MISSING)
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    return _MISSING


def _construct(node: yaml.Node, path: Path, at: dict[Path, tuple[int, int]], loader: yaml.SafeLoader) -> Any:
    at[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str | int):
                raise _Placed("a key must be a name", key_node)
            if key in out:
                raise _Placed(f"{key!r} appears twice", key_node)
            out[key] = _construct(value_node, (*path, key), at, loader)
            at.setdefault((*path, key), (key_node.start_mark.line + 1, key_node.start_mark.column + 1))
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item, (*path, i), at, loader) for i, item in enumerate(node.value)]
    if node.tag == _YAML_TIMESTAMP:  # a date or timestamp stays the text written, 2027-02-31 too:
        return str(node.value)  # the model judges it (PyYAML's constructor would raise ValueError)
    value = loader.construct_object(node)
    return value if isinstance(value, str | int | float | bool | type(None)) else str(node.value)


class _Placed(Exception):
    def __init__(self, message: str, node: yaml.Node) -> None:
        super().__init__(message)
        self.line = node.start_mark.line + 1
        self.column = node.start_mark.column + 1


def _yaml_problem(err: yaml.YAMLError, what: str) -> DefinitionProblem:
    """A YAML error as a problem, placed where the parser or constructor stopped."""
    if not isinstance(err, yaml.MarkedYAMLError):
        return DefinitionProblem(message=f"YAML: {err}")
    mark = err.problem_mark or err.context_mark
    message = " ".join(str(p) for p in (err.context, err.problem) if p) or str(err)
    return DefinitionProblem(
        message=f"{what}: {message}", line=mark.line + 1 if mark else None, column=mark.column + 1 if mark else None
    )


def read_document(text: str, source: str = "definition") -> tuple[Any, Positions]:
    """The file's data and the position of each node. Raises :class:`DefinitionInvalid` for a YAML
    syntax error, placed where the parser stopped."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        raise DefinitionInvalid([_yaml_problem(err, "YAML syntax")], source) from None
    if root is None:
        raise DefinitionInvalid([DefinitionProblem(message="the file is empty")], source)
    at: dict[Path, tuple[int, int]] = {}
    try:
        data = _construct(root, (), at, yaml.SafeLoader(""))
    except yaml.YAMLError as err:  # a tag the safe loader refuses (!!python/object...)
        raise DefinitionInvalid([_yaml_problem(err, "YAML")], source) from None
    except _Placed as err:
        raise DefinitionInvalid(
            [DefinitionProblem(message=str(err), line=err.line, column=err.column)], source
        ) from None
    return data, Positions(at)


def problems_from(err: ValidationError, data: Any, positions: Positions | None) -> list[DefinitionProblem]:
    """pydantic's errors as placed problems: the field path, and its line and column in the file."""
    out: list[DefinitionProblem] = []
    for e in err.errors():
        loc: Path = tuple(e["loc"])
        message = str(e["msg"]).removeprefix("Value error, ")
        ctx = e.get("ctx") or {}
        inner = ctx.get("path") if isinstance(ctx.get("path"), str) else None
        match = _LEADING_PATH.match(message) if inner is None else None
        if match is not None:
            inner, message = match.group(1), message[match.end() :]
        if positions is not None and inner is not None:
            path, pos = positions.resolve(data, inner)
        elif positions is not None:
            path, pos = positions.find(data, loc)
        else:
            path, pos = (tuple(inner.split(".")) if inner else loc), None
        shown = ".".join(str(p) for p in path) if inner is None or positions is not None else inner
        if e["type"] == "missing":
            message = f"{loc[-1]} is required" if loc else message
        elif e["type"] == "extra_forbidden" and loc:
            message = f"{loc[-1]!r} is not a field here"
        out.append(
            DefinitionProblem(path=shown, line=pos[0] if pos else None, column=pos[1] if pos else None, message=message)
        )
    return out


def parse_definition(text: str, source: str = "definition") -> WorkloadDefinition:
    """A definition from the text of a YAML or JSON file. Raises :class:`DefinitionInvalid`."""
    data, positions = read_document(text, source)
    return validate_data(data, positions, source)


def validate_data(data: Any, positions: Positions | None = None, source: str = "definition") -> WorkloadDefinition:
    """A definition from already-parsed data (an API body); ``positions`` places its problems."""
    if not isinstance(data, dict):
        raise DefinitionInvalid(
            [DefinitionProblem(message="a definition is a mapping (name, ddl, operations...)")], source
        )
    try:
        return WorkloadDefinition.model_validate(data)
    except ValidationError as err:
        raise DefinitionInvalid(problems_from(err, data, positions), source) from None
