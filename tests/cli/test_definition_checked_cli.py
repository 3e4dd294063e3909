"""``spanload run --workload-file`` checks the definition against the target before any load, as
``spanload validate`` does (issue 22): a misspelt column exits 2 with the problem on its file line
and column, and the target's database is never created. Before, it ran with INVALID_ARGUMENT
errors and exited 0."""

from __future__ import annotations

from pathlib import Path

from google.cloud import spanner

from spanload.model.config import Target
from spanload.spanner.client import make_client
from tests.engine.conftest import LocalTarget
from tests.helpers import line_column, spanload_cli

SHOP = (Path(__file__).parents[2] / "workloads" / "shop.yaml").read_text()


def test_a_misspelt_column_exits_2_on_its_line_before_load(local_spanner: LocalTarget, tmp_path: Path) -> None:
    broken = SHOP.replace("ORDER BY Created DESC", "ORDER BY Createdd DESC")
    path = tmp_path / "broken.yaml"
    path.write_text(broken)
    database = "checked-before-load"
    result = spanload_cli(
        "run",
        "--emulator-host",
        local_spanner.address,
        "--database",
        database,
        "--workload-file",
        str(path),
        "--duration",
        "3s",
        "--no-save",
    )
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert lines[0] == "spanload run: shop: 1 problem"
    assert lines[1].startswith(  # placed on the misspelt name itself
        f"  {line_column(broken, 'Createdd')}: operations.recent_orders.steps.0.sql: "
        "INVALID_ARGUMENT: Unrecognized name: Createdd"
    )
    assert "Traceback" not in result.stderr
    client: spanner.Client = make_client(
        Target(kind="local", emulator_host=local_spanner.address), local_spanner.address
    )
    try:
        assert not client.instance(Target().instance).database(database).exists()  # no load, no schema
    finally:
        client.close()
