"""How the suite is spread over pytest-xdist's workers (`make test` runs `pytest -n 3 --dist loadfile`).

Most of the suite's wall time is spent waiting on load runs of fixed length, so three workers share
two cores well. Each test file goes to one worker whole (its module fixtures, a database or an app
with its store, are made once, and its tests keep their order); the files of a :data:`TOGETHER`
group go to one worker as one unit, one after the other, because they must not run beside each
other. The files that take longest are handed out first (:data:`LONGEST_FIRST`), so that no worker
starts one of them when the others are nearly done. Run without ``-n``, nothing changes but that order.

(``--dist loadgroup`` with ``xdist_group`` marks would say the same, but pytest-xdist 3.8 puts the
group into ``item._nodeid``, which pytest 9.2 no longer reads, so every test went its own way.)
"""

from __future__ import annotations

from typing import Any

import pytest

# Files (or TOGETHER groups) that take a minute or more alone on this machine, longest first.
LONGEST_FIRST = (
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

# Files that run one after the other on one worker: each drives Debian's chromium against a
# `spanload serve` of its own.
TOGETHER = {
    "browser": (
        "tests/browser/test_first_run_in_chromium.py",
        "tests/browser/test_ui_in_chromium.py",
        "tests/browser/test_workloads_in_chromium.py",
    ),
}
_GROUP_OF = {path: group for group, paths in TOGETHER.items() for path in paths}


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its file, or the TOGETHER group of its file."""
    path = nodeid.split("::")[0]
    return _GROUP_OF.get(path, path)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {unit: i for i, unit in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(unit_of(item.nodeid), len(rank)))  # stable: files keep their order


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``--dist loadfile``: xdist's own scheduling by file, with the TOGETHER groups as units."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ByUnit(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return ByUnit(config, log)
