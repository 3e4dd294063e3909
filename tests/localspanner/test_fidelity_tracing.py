"""Issue 25: the Python client's OpenTelemetry spans against the local Spanner.

The official client's system tests test_observability_options.py run these cases only against the emulator ("Emulator
is necessary to test traces"); the expected span names, nesting and statuses are theirs:
- test_transaction_update_implicit_begin_nested_inside_commit: run_in_transaction with mutations only gives
  Database.run_in_transaction, the session's creation (CreateMultiplexedSession or CreateSession, by session mode),
  Session.run_in_transaction, Transaction.commit, and Transaction.begin as a child of the commit.
- test_database_partitioned_error: a Partitioned DML statement on a missing table gives three spans,
  Database.execute_partitioned_pdml and ExecuteStreamingSql in error, whose descriptions start with the emulator's
  message, and the session's creation in between, OK.

Which begin the client takes is its own choice, not the server's (google-cloud-spanner 3.71.0, transaction.py and
snapshot.py): Transaction.commit without a transaction id calls _begin_mutations_only_transaction, a BeginTransaction
RPC traced as "CloudSpanner.Transaction.begin" under the commit, in every session mode (the mutation key is added only
when the client's own session is multiplexed, which its environment variables decide); a statement that runs first
sends an inline begin and takes the transaction id from its first result's metadata, with no begin span. What the
server decides is whether that id comes back: when it does not, the client has no transaction to commit. So the
inline case is asserted here with the RPCs the client sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud.spanner_v1 import Client
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.database_sessions_manager import DatabaseSessionsManager, TransactionType
from google.cloud.spanner_v1.transaction import Transaction
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.trace.status import StatusCode

from .conftest import PROJECT, DatabaseFactory, SpannerDb
from .rpc_recorder import RpcRecorder, instrument

DDL = ["CREATE TABLE Singers (SingerId INT64 NOT NULL, FirstName STRING(1024)) PRIMARY KEY (SingerId)"]


@pytest.fixture(scope="module")
def tdb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


class Traced:
    """The module's database through a new client that traces into memory, with a fresh session."""

    def __init__(self, tdb: SpannerDb, address: str) -> None:
        provider = TracerProvider(sampler=ALWAYS_ON)
        self.exporter = InMemorySpanExporter()
        provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        client = Client(
            project=PROJECT,
            credentials=AnonymousCredentials(),
            disable_builtin_metrics=True,
            observability_options={"tracer_provider": provider, "enable_extended_tracing": True},
        )
        self.database: Database = client.instance(tdb.database._instance.instance_id).database(tdb.database.database_id)
        self.recorder: RpcRecorder = instrument(self.database, address)

    @staticmethod
    def session_span(kind: TransactionType) -> str:
        """The span of the session's creation: the client's choice for this kind of transaction (its environment)."""
        if DatabaseSessionsManager._use_multiplexed(kind):
            return "CloudSpanner.CreateMultiplexedSession"
        return "CloudSpanner.CreateSession"

    def spans(self) -> list[ReadableSpan]:
        return sorted(self.exporter.get_finished_spans(), key=lambda span: span.start_time or 0)


@pytest.fixture
def traced(tdb: SpannerDb, server_address: str) -> Iterator[Traced]:
    yield Traced(tdb, server_address)


def _run_in_transaction_spans(*work: str) -> list[str]:
    """The spans of Database.run_in_transaction on a new client, in start order, then those of the work."""
    return [
        "CloudSpanner.Database.run_in_transaction",
        Traced.session_span(TransactionType.READ_WRITE),
        "CloudSpanner.Session.run_in_transaction",
        *work,
    ]


def _run(traced: Traced, work: Callable[[Transaction], Any]) -> list[ReadableSpan]:
    traced.database.run_in_transaction(work)
    return traced.spans()


def test_mutations_only_begin_is_traced_inside_the_commit(traced: Traced) -> None:
    spans = _run(
        traced, lambda tx: tx.insert_or_update("Singers", ["SingerId", "FirstName"], [[1, "Bryan"], [2, "Slash"]])
    )
    assert [span.name for span in spans] == _run_in_transaction_spans(
        "CloudSpanner.Transaction.commit", "CloudSpanner.Transaction.begin"
    )
    begin, commit = spans[-1], spans[-2]
    assert begin.parent is not None and begin.parent.span_id == commit.context.span_id
    assert [span.status.status_code for span in spans] == [StatusCode.OK] * len(spans)


def test_a_statement_first_begins_the_transaction_inline(traced: Traced) -> None:
    spans = _run(traced, lambda tx: tx.execute_update("UPDATE Singers SET FirstName = 'x' WHERE SingerId = 1"))
    assert [span.name for span in spans] == _run_in_transaction_spans(
        "CloudSpanner.Transaction.execute_update", "CloudSpanner.Transaction.commit"
    )
    sent = [(call.name, call.request) for call in traced.recorder.calls() if call.name != "CreateSession"]
    assert [name for name, _ in sent] == ["ExecuteSql", "Commit"]
    execute, commit = sent[0][1], sent[1][1]
    assert execute.transaction._pb.WhichOneof("selector") == "begin"
    assert commit.transaction_id, "the commit names the transaction the first statement's result carried"


def test_partitioned_dml_on_a_missing_table_is_traced_with_spanners_error(traced: Traced) -> None:
    expected_error_prefix = (
        "InvalidArgument: 400 Table not found: NonExistent [at 1:8]\n"
        "UPDATE NonExistent SET name = 'foo' WHERE id > 1\n"
        "       ^"
    )
    with pytest.raises(Exception, match="Table not found: NonExistent"):
        traced.database.execute_partitioned_dml("UPDATE NonExistent SET name = 'foo' WHERE id > 1")
    statuses = [(span.name, span.status.status_code, span.status.description) for span in traced.spans()]
    assert [(name, code) for name, code, _ in statuses] == [
        ("CloudSpanner.Database.execute_partitioned_pdml", StatusCode.ERROR),
        (traced.session_span(TransactionType.PARTITIONED), StatusCode.OK),
        ("CloudSpanner.ExecuteStreamingSql", StatusCode.ERROR),
    ]
    assert statuses[1][2] is None
    for name, _, description in (statuses[0], statuses[2]):
        assert description is not None and description.startswith(expected_error_prefix), (name, description)
