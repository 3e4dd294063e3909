"""`spanload validate FILE` and `spanload workloads list|show|schema`, and the `--workload-file` /
`--set` flags of `spanload run`.

Exit codes: 0 valid, 2 a definition with problems (each printed on its own line with the file's
line and column) or bad flags, 1 a target that could not be reached.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml
from rich import box
from rich.table import Table

from spanload.cli.console import show
from spanload.model.config import Target, TargetKind
from spanload.model.errors import EXIT_OK, RunError, RunInvalid
from spanload.model.settings import get_settings
from spanload.model.workload import KnobValue, WorkloadDefinition
from spanload.model.workload_file import DefinitionInvalid, Positions, read_document, validate_data
from spanload.model.workload_library import builtin_workload, builtin_workloads


def read_definition_file(path: Path) -> tuple[WorkloadDefinition, Any, Positions]:
    """A definition file, parsed and placed. Raises :class:`RunInvalid` for an unreadable file and
    :class:`DefinitionInvalid` for a broken one."""
    try:
        text = path.read_text()
    except OSError as err:
        raise RunInvalid(f"cannot read {path}: {err.strerror}", "workload_file") from None
    data, positions = read_document(text, str(path))
    return validate_data(data, positions, str(path)), data, positions


def parse_sets(items: list[str]) -> dict[str, KnobValue]:
    """``["customers=500", "hot=true"]`` -> ``{"customers": 500, "hot": True}`` (values read as YAML
    scalars). Raises :class:`RunInvalid` naming the bad item."""
    out: dict[str, KnobValue] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise RunInvalid(f"--set {item!r}: write it as NAME=VALUE, e.g. --set order_rate=80", "knobs")
        value = yaml.safe_load(text) if text.strip() else ""
        if not isinstance(value, bool | int | float | str):
            raise RunInvalid(f"--set {item!r}: {text!r} is not a number, true/false or a string", f"knobs.{name}")
        out[name.strip()] = value
    return out


def validate_main(args: SimpleNamespace) -> int:
    from spanload.engine.workload_check import check
    from spanload.spanner.local_server import start_local_spanner

    definition, data, positions = read_definition_file(args.file)
    target = None
    if args.target is not None or args.emulator_host is not None:
        kind = TargetKind(args.target or "emulator")
        target = Target(
            kind=kind,
            emulator_host=args.emulator_host,
            project=args.project,
            instance=args.instance,
            database=args.database,
        )
    settings = get_settings()
    scratch = start_local_spanner(binary=settings.local_spanner_binary)
    try:
        knobs = None
        if args.dry_run:
            try:
                knobs = definition.knob_values(parse_sets(args.set))
            except ValueError as err:
                raise RunInvalid(f"knobs.{err}", "knobs") from None
        result = check(definition, scratch.address, target, args.emulator_host, data, positions, knobs)
    finally:
        scratch.stop()
    if result.problems:
        raise DefinitionInvalid(result.problems, str(args.file))
    out = sys.stdout
    where = "offline (a scratch local Spanner)" if target is None else f"against {target.database}"
    out.write(
        f"{args.file}: valid {where}: {len(definition.operations)} operations "
        f"({', '.join(definition.operations)})"
        + (f"; would create {', '.join(result.creates)}" if result.creates and target is not None else "")
        + "\n"
    )
    for ran in result.dry_run or []:
        state = "ok" if ran.ok else f"FAILED: {ran.error}"
        out.write(f"\n{ran.operation} ({ran.transaction.value}{', rolled back' if ran.rolled_back else ''}): {state}\n")
        for step in ran.steps:
            rows = f"{step.row_count} row{'s' if step.row_count != 1 else ''}"
            out.write(f"  step {step.step} {step.kind} {step.what}: {rows}\n")
            if step.columns:
                out.write(f"    {' | '.join(step.columns)}\n")
            for row in step.rows:
                out.write(f"    {' | '.join(str(v) for v in row)}\n")
    failed = [r.operation for r in result.dry_run or [] if not r.ok]
    if failed:
        raise RunError(f"the dry run failed in {', '.join(failed)}")
    return EXIT_OK


def workloads_main(args: SimpleNamespace) -> int:
    directory = get_settings().workloads_dir
    out = sys.stdout
    match args.verb:
        case "list":
            table = Table("name", "what it runs", box=box.SIMPLE_HEAD)
            for name, builtin in builtin_workloads(directory).items():
                table.add_row(name, builtin.definition.description or ", ".join(builtin.definition.operations))
            show(table)
        case "show":
            out.write(builtin_workload(directory, args.name).source)
        case "schema":
            out.write(json.dumps(WorkloadDefinition.model_json_schema(), indent=2) + "\n")
    return EXIT_OK
