"""Issue 14, "Splits and participants in the local Spanner", through the official client: the
per-database options, participants counted by the server, the local counters table and the latency
model (on: a commit round per participant round; off: no delay)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance

from .conftest import OPERATION_TIMEOUT_S, create_database, unique
from .server_process import ServerProcess

COUNTERS_SQL = (
    "SELECT COMMIT_COUNT, PARTICIPANTS, COMMIT_LATENCY_SECONDS, MODEL_CPU_SECONDS, PROCESS_CPU_SECONDS, SPLITS "
    "FROM SPANNER_SYS.SPANLOAD_COUNTERS"
)
SPLIT_ROWS = 10
COMMIT_ROUND_S = 0.003  # txn.CommitRound
CPU_PER_PARTICIPANT_S = 0.001  # txn.CPUPerParticipant
COMMITS = 20


@pytest.fixture(scope="module")
def database(instance: Instance, local_spanner: ServerProcess) -> Iterator[Database]:
    db = create_database(
        instance, local_spanner.address, ["CREATE TABLE T (Id INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (Id)"]
    )
    yield db.database
    db.database.drop()


def set_options(database: Database, options: str) -> None:
    database.update_ddl([f"ALTER DATABASE `{database.database_id}` SET OPTIONS ({options})"]).result(
        OPERATION_TIMEOUT_S
    )


def counters(database: Database) -> list[float]:
    with database.snapshot() as snap:
        rows = [list(r) for r in snap.execute_sql(COUNTERS_SQL)]
    assert len(rows) == 1
    return [float(v) for v in rows[0]]


def insert(database: Database, ids: list[int]) -> None:
    with database.batch() as batch:
        batch.insert_or_update("T", ["Id", "V"], [[i, "v"] for i in ids])


def commit_figures(database: Database, ids: list[int]) -> tuple[float, float, float]:
    """COMMITS commits writing ``ids``: their average participants, server commit latency and model CPU."""
    before = counters(database)
    for _ in range(COMMITS):
        insert(database, ids)
    after = counters(database)
    commits = after[0] - before[0]
    assert commits == COMMITS
    return (after[1] - before[1]) / commits, (after[2] - before[2]) / commits, (after[3] - before[3]) / commits


def test_splits_participants_and_the_latency_model(database: Database) -> None:
    set_options(database, f"spanload_split_rows = {SPLIT_ROWS}")
    assert counters(database)[5] == 0, "a database without rows has no splits yet"
    insert(database, list(range(1, SPLIT_ROWS + 1)))  # divided at the median: [..6) [6..)
    assert counters(database)[5] == 2

    # Off (the default): no delay, no CPU charged.
    one, _, one_cpu = commit_figures(database, [1, 2])
    two, _, two_cpu = commit_figures(database, [1, 9])
    assert (one, two) == (1.0, 2.0)
    assert one_cpu == 0.0 and two_cpu == 0.0

    set_options(database, "spanload_latency_model = 'production_like'")
    one, one_lat, one_cpu = commit_figures(database, [1, 2])
    two, two_lat, two_cpu = commit_figures(database, [1, 9])
    assert (one, two) == (1.0, 2.0)
    assert one_cpu == pytest.approx(CPU_PER_PARTICIPANT_S) and two_cpu == pytest.approx(2 * CPU_PER_PARTICIPANT_S)
    # One round with one participant, two with two (2PC): floors the model's waits guarantee, which a
    # slow machine only raises. (Comparing them with the model off compared two timings; that the
    # model off charges nothing is its CPU above, a count.)
    assert one_lat >= COMMIT_ROUND_S and two_lat >= 2 * COMMIT_ROUND_S

    set_options(database, "spanload_latency_model = NULL")
    _, _, cpu = commit_figures(database, [1, 9])
    assert cpu == 0.0


@pytest.mark.parametrize(
    "options",
    ["spanload_split_rows = 1", "spanload_latency_model = 'fast'", "spanload_unknown = 3"],
)
def test_bad_options_fail_their_operation(database: Database, options: str) -> None:
    with pytest.raises(gexc.InvalidArgument):
        set_options(database, options)


def test_options_of_another_database_are_refused(instance: Instance, database: Database) -> None:
    op = database.update_ddl([f"ALTER DATABASE `{unique('other')}` SET OPTIONS (spanload_split_rows = 5)"])
    with pytest.raises(gexc.InvalidArgument):
        op.result(OPERATION_TIMEOUT_S)
