"""Issue 22: the report workloads are definition files (workloads/*.yaml), so the worker runtimes
hold no workload of their own: outside tests, goworker/ and backend/spanload/workers/ name none of
the report tables. The files of the hand-written Change Watcher (its updater, watcher and reader,
and the Go schema they use) still do until the change watcher runs as a definition; the list
below may only shrink."""

from __future__ import annotations

import re

from tests.helpers import REPO

TABLES = re.compile(r"\b(Singers|Tweets|Players|Scores|UserTable)\b")
STILL_HAND_WRITTEN = {
    "goworker/internal/reader/reader.go",
    "goworker/internal/schema/seed.go",
    "goworker/internal/schema/spec.go",
}


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


def test_only_the_hand_written_change_watcher_names_the_report_tables() -> None:
    assert _naming() == STILL_HAND_WRITTEN
