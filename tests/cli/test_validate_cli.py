"""`spanload validate FILE`, `spanload workloads`, and `spanload run --workload-file` with a broken
definition: exit 0 or 2, one placed line per problem, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import line_column, position, spanload_cli

SHOP_PATH = Path(__file__).parents[2] / "workloads" / "shop.yaml"
SHOP = SHOP_PATH.read_text()


def test_a_valid_definition_exits_0_offline() -> None:
    result = spanload_cli("validate", str(SHOP_PATH))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        f"{SHOP_PATH}: valid offline (a scratch local Spanner): 2 operations (place_order, recent_orders)\n"
    )


def test_problems_exit_2_each_on_its_line(tmp_path: Path) -> None:
    broken = SHOP.replace("ORDER BY Created DESC", "ORDER BY Createdd DESC").replace(
        "insert: {table: Orders", "insert: {table: Orderz"
    )
    path = tmp_path / "broken.yaml"
    path.write_text(broken)
    result = spanload_cli("validate", str(path))
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert lines[0] == f"spanload validate: {path}: 2 problems"
    assert lines[1].startswith(
        f"  {line_column(broken, 'Orderz')}: operations.place_order.steps.1.insert.table: table Orderz does not exist"
    )
    assert lines[2].startswith(
        f"  {line_column(broken, 'Createdd')}: operations.recent_orders.steps.0.sql: "
        "INVALID_ARGUMENT: Unrecognized name: Createdd"
    )
    assert "Traceback" not in result.stderr


def test_run_with_a_broken_definition_exits_2_before_anything_starts(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(SHOP.replace("max: $max_items", "max: $max_itemz"))
    result = spanload_cli("run", "--workload-file", str(path), "--duration", "1s")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"spanload run: {path}: 1 problem",
        f"  {line_column(SHOP, '$max_items')}: values.items.uniform.max: $max_itemz names no knob",
    ]
    bad_knob = spanload_cli("run", "--workload-file", str(SHOP_PATH), "--set", "order_rate=fast")
    assert (bad_knob.returncode, bad_knob.stderr) == (
        2,
        "spanload run: invalid run configuration: knobs.order_rate: 'fast' is not a number\n",
    )


def test_workloads_list_show_and_schema() -> None:
    listed = spanload_cli("workloads", "list")
    assert listed.returncode == 0 and "shop" in listed.stdout.split()
    shown = spanload_cli("workloads", "show", "shop")
    assert shown.stdout == SHOP
    missing = spanload_cli("workloads", "show", "nope")
    assert missing.returncode == 1 and missing.stderr.startswith("spanload workloads: no workload definition named")
    schema = json.loads(spanload_cli("workloads", "schema").stdout)
    assert schema["title"] == "WorkloadDefinition"


def test_a_postgresql_definition_validates_on_a_postgresql_scratch_database(tmp_path: Path) -> None:
    # PostgreSQL's wording for an unknown column: column "x" does not exist (its errcodes: 42703)
    shop_pg = SHOP_PATH.with_name("shop_pg.yaml")
    valid = spanload_cli("validate", str(shop_pg))
    assert valid.returncode == 0, valid.stderr
    assert (
        valid.stdout
        == f"{shop_pg}: valid offline (a scratch local Spanner): 2 operations (place_order, recent_orders)\n"
    )
    text = shop_pg.read_text()
    broken = text.replace("FROM customers WHERE customer_id = $1", "FROM customers WHERE customerid = $1")
    path = tmp_path / "broken_pg.yaml"
    path.write_text(broken)
    result = spanload_cli("validate", str(path))
    assert result.returncode == 2
    assert result.stderr.splitlines()[1].startswith(
        f"  {line_column(broken, 'SELECT balance')}: operations.place_order.steps.0.sql: INVALID_ARGUMENT: "
        '[ERROR] column "customerid" does not exist'
    )


def test_the_columns_a_watch_reads_are_checked_with_their_types(tmp_path: Path) -> None:
    """The watch's commit timestamp, its reconciliation's version (INT64) and writer (STRING) and its
    shards' column (INT64), each a column of the watched table of that type; before, a misspelt
    writer column validated and the run's polls failed."""
    text = (SHOP_PATH.parent / "change_watcher.yaml").read_text()
    broken = (
        text.replace("timestamp: LastUpdated", "timestamp: FirstName")
        .replace("writer: WriterId}", "writer: WriterIdd}")
        .replace("shards: {column: ShardId", "shards: {column: LastName")
    )
    path = tmp_path / "watch.yaml"
    path.write_text(broken)
    result = spanload_cli("validate", str(path))
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.splitlines()[1:] == [
        f"  {_value_at(broken, 'timestamp: FirstName')}: watch.timestamp: Singers.FirstName is not a TIMESTAMP column",
        f"  {line_column(broken, 'WriterIdd')}: watch.versions.writer: Singers.WriterIdd is not a STRING column",
        f"  {_value_at(broken, 'column: LastName')}: watch.shards.column: Singers.LastName is not an INT64 column",
    ]


def _value_at(text: str, field: str) -> str:
    """Where the value of ``key: value`` (written once in ``text``) starts."""
    line, column = position(text, field)
    return f"line {line}, column {column + field.index(':') + 2}"


def test_a_date_that_is_no_day_is_placed_on_its_line(tmp_path: Path) -> None:
    # unquoted, YAML reads it as a timestamp: a traceback once; quoted, it validated and the run
    # failed as it started with "day is out of range for month"
    for written in ("2027-02-31", "'2027-02-31'"):
        broken = SHOP.replace(
            "  order_id: uuid\n", f"  order_id: uuid\n  due: {{date: {{min: 2026-12-01, max: {written}}}}}\n"
        )
        path = tmp_path / "broken.yaml"
        path.write_text(broken)
        result = spanload_cli("validate", str(path))
        assert result.returncode == 2, result.stdout + result.stderr
        assert result.stderr.splitlines() == [
            f"spanload validate: {path}: 1 problem",
            f"  {line_column(broken, written)}: values.due.date.max: '2027-02-31' is not a date YYYY-MM-DD",
        ]
