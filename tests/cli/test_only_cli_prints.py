"""Only spanload.cli prints; every other module logs. Checked on the source, so a stray print() fails."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "backend" / "spanload"
# The worker process speaks its protocol on stdout and logs to stderr: a wire, not printing. The
# generators (`python -m ...`) write the file they generate to stdout: their product, not a message.
WIRE = {
    ("workers/process.py", "sys.stdout"),
    ("workers/process.py", "sys.stderr"),
    ("model/names_go.py", "sys.stdout"),
    ("model/names_ts.py", "sys.stdout"),
    ("workers/interp/golden.py", "sys.stdout"),
}


def _printing(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found.append((node.lineno, "print"))
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
            and node.attr in ("stdout", "stderr")
        ):
            found.append((node.lineno, f"sys.{node.attr}"))
    return found


def test_nothing_outside_cli_prints() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("cli/"):
            continue
        offenders += [f"{relative}:{line} {what}" for line, what in _printing(path) if (relative, what) not in WIRE]
    assert offenders == []


def test_the_check_sees_a_print(tmp_path: Path) -> None:
    module = tmp_path / "talkative.py"
    module.write_text('import sys\n\nprint("hi")\nsys.stderr.write("x")\nlog = "print"\n')
    assert _printing(module) == [(3, "print"), (4, "sys.stderr")]
