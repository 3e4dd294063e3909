"""How tests/conftest.py hands the suite to pytest-xdist's workers: the longest units first, a unit's
tests together, a closed_minute test last in its unit."""

from __future__ import annotations

from dataclasses import dataclass

from tests.conftest import PGADAPTER_FILES, sort_for_workers


@dataclass
class Item:
    nodeid: str
    closed_minute: bool = False

    def get_closest_marker(self, name: str) -> object | None:
        return object() if name == "closed_minute" and self.closed_minute else None


def test_longest_units_first_and_a_closed_minute_test_last_in_its_unit() -> None:
    pg, tpcc = PGADAPTER_FILES
    items = [
        Item("tests/api/test_a.py::one"),
        Item(f"{pg}::first"),
        Item(f"{pg}::reads_the_minute", closed_minute=True),
        Item(f"{pg}::after_it"),
        Item("tests/model/test_b.py::two"),
        Item(f"{tpcc}::tpcc"),
        Item("tests/engine/test_server_minute.py::pairs"),
    ]
    sort_for_workers(items)
    assert [i.nodeid.rsplit("::")[-1] for i in items] == [
        "first",
        "after_it",
        "tpcc",
        "reads_the_minute",  # last of the pgadapter unit, after the other file of that unit too
        "pairs",
        "one",
        "two",
    ]
