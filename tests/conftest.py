"""How the suite is spread over pytest-xdist's workers (`make test` runs `pytest -n 5 --dist loadfile`).

Most of the suite's wall time is spent waiting on load runs of fixed length, so five workers share
two cores well. Each test file goes to one worker whole (its module fixtures, a database or an app
with its store, are made once, and its tests keep their order); the files of a :data:`TOGETHER`
directory go to one worker as one unit, one after the other, because they must not run beside each
other. The files that take longest are handed out first (:data:`LONGEST_FIRST`), so that no worker
starts one of them when the others are nearly done. Run without ``-n``, nothing changes but that order.

(``--dist loadgroup`` with ``xdist_group`` marks would say the same, but pytest-xdist 3.8 puts the
group into ``item._nodeid``, which pytest 9.2 no longer reads, so every test went its own way.)
"""

from __future__ import annotations

import signal
import threading
from typing import Any

import pytest

# Files (or TOGETHER groups) that take a minute or more alone on this machine, longest first.
# The PGAdapter files go first of all, so that a worker starts with them (its one JVM starts with
# the run, and the run's tagged minute closes while the others work).
LONGEST_FIRST = (
    "pgadapter",
    "tests/engine/test_server_minute.py",
    "tests/engine/test_definition_e2e.py",
    "browser",
    "tests/engine/test_ray_placement.py",
    "tests/engine/test_two_pc_participants.py",
    "tests/engine/test_tpcc_e2e.py",
    "tests/engine/test_profiles.py",
    "tests/engine/test_capacity_e2e.py",
    "tests/engine/test_e2e_local.py",
    "tests/engine/test_preload.py",
)

# The files whose tests use the ``pgadapter`` fixture (a session's PGAdapter, a JVM): one worker
# runs them all, so one JVM serves the run (pytest_collection_modifyitems refuses a file missing here).
PGADAPTER_FILES = ("tests/localspanner/test_pg_pgadapter.py", "tests/localspanner/test_pg_tpcc.py")

# Paths (directory prefixes or files) whose files run one after the other on one worker: each
# browser test drives Debian's chromium against a `spanload serve` of its own (every file there,
# those added later too); the PGAdapter files share one PGAdapter.
TOGETHER = {"browser": ("tests/browser/",), "pgadapter": PGADAPTER_FILES}


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its file, or the TOGETHER group of its path."""
    path = nodeid.split("::")[0]
    return next((group for group, prefixes in TOGETHER.items() if path.startswith(prefixes)), path)


def pytest_configure(config: pytest.Config) -> None:
    """A SIGTERM (a CI timeout, a `kill` of the run) ends the run as Ctrl-C does, so fixtures tear
    down and stop the servers they started (a Ray cluster's nodes run in sessions of their own and
    outlived a terminated run)."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    strays = sorted({item.nodeid.split("::")[0] for item in items if "pgadapter" in getattr(item, "fixturenames", ())})
    strays = [path for path in strays if unit_of(path) != "pgadapter"]
    if strays:
        raise pytest.UsageError(
            f"{', '.join(strays)} use the pgadapter fixture: add them to PGADAPTER_FILES in tests/conftest.py"
        )
    sort_for_workers(items)


def sort_for_workers(items: list[Any]) -> None:
    """The units of :data:`LONGEST_FIRST` first, in its order, then the others as collected; a unit's
    tests stay together and in their order, except that a ``closed_minute`` test goes last in its unit
    (it reads back a SPANNER_SYS minute that its session's run began: the unit's other tests run
    while that minute closes)."""
    rank = {unit: i for i, unit in enumerate(LONGEST_FIRST)}
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        first.setdefault(unit_of(item.nodeid), i)

    def order(item: Any) -> tuple[int, int, bool]:
        unit = unit_of(item.nodeid)
        return rank.get(unit, len(rank)), first[unit], item.get_closest_marker("closed_minute") is not None

    items.sort(key=order)  # stable


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``--dist loadfile``: xdist's own scheduling by file, with the TOGETHER directories as units."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ByUnit(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return ByUnit(config, log)
