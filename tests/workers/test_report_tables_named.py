"""Issue 22: the report workloads are definition files (workloads/*.yaml), so the worker runtimes
hold no workload of their own: outside tests, goworker/ and backend/spanload/workers/ name none of
the report tables (the hand-written change watcher, write benchmark, session pool and participants
are deleted from both runtimes)."""

from __future__ import annotations

import re

from tests.helpers import REPO

TABLES = re.compile(r"\b(Singers|Tweets|Players|Scores|UserTable)\b")


def _naming() -> set[str]:
    roots = [REPO / "backend" / "spanload" / "workers", REPO / "goworker"]
    found = set()
    for root in roots:
        for path in root.rglob("*"):
            if path.suffix not in (".py", ".go") or path.name.endswith("_test.go") or "testdata" in path.parts:
                continue
            if TABLES.search(path.read_text()):
                found.add(path.relative_to(REPO).as_posix())
    return found


def test_no_worker_runtime_names_the_report_tables() -> None:
    assert _naming() == set()
