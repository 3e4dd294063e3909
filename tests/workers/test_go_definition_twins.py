"""The Go interpreter's tests run definitions from JSON twins (goworker/internal/interp/testdata),
which must be what the start message carries for the YAML they come from: the Python reader's
model, dumped as the supervisor dumps a config. This fails when a YAML or the model changes and the
twin does not; ``.venv/bin/python tests/workers/test_go_definition_twins.py`` rewrites the twins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spanload.model.workload_file import parse_definition

REPO = Path(__file__).parents[2]
TESTDATA = REPO / "goworker" / "internal" / "interp" / "testdata"
TWINS = {"shop.json": REPO / "workloads" / "shop.yaml", "inventory.json": TESTDATA / "inventory.yaml"}


def twin(source: Path) -> object:
    return json.loads(parse_definition(source.read_text(), source.name).model_dump_json(by_alias=True))


@pytest.mark.parametrize("name", sorted(TWINS))
def test_the_json_twin_is_the_readers_model_of_its_yaml(name: str) -> None:
    assert json.loads((TESTDATA / name).read_text()) == twin(TWINS[name]), (
        f"{name} is stale: .venv/bin/python tests/workers/test_go_definition_twins.py rewrites it"
    )


if __name__ == "__main__":
    for name, source in TWINS.items():
        (TESTDATA / name).write_text(json.dumps(twin(source), indent=1) + "\n")
