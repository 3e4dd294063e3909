"""Issue 8, "Sessions": regular and multiplexed sessions, and the client in both modes."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as gexc
from google.cloud.spanner_v1 import (
    BatchCreateSessionsRequest,
    BeginTransactionRequest,
    CommitRequest,
    CreateSessionRequest,
    ExecuteSqlRequest,
    ListSessionsRequest,
    Mutation,
    Session,
    TransactionOptions,
)
from google.cloud.spanner_v1.services.spanner import SpannerClient
from google.protobuf import struct_pb2

from .conftest import DatabaseFactory, SpannerDb
from .rpc_recorder import raw_spanner_client

DDL = ["CREATE TABLE Kv (K STRING(MAX) NOT NULL, V INT64) PRIMARY KEY (K)"]


@pytest.fixture(scope="module")
def sdb(make_database: DatabaseFactory) -> SpannerDb:
    return make_database(DDL)


@pytest.fixture(scope="module")
def raw(server_address: str) -> SpannerClient:
    return raw_spanner_client(server_address)


def test_session_rpcs(sdb: SpannerDb, raw: SpannerClient) -> None:
    """CreateSession, BatchCreateSessions, GetSession, ListSessions, DeleteSession."""
    db_name = sdb.database.name
    one = raw.create_session(CreateSessionRequest(database=db_name, session=Session(labels={"who": "test"})))
    assert one.name.startswith(db_name + "/sessions/"), one.name
    assert not one.multiplexed
    batch = raw.batch_create_sessions(BatchCreateSessionsRequest(database=db_name, session_count=3))
    assert len(batch.session) == 3, "BatchCreateSessions may return fewer only under limits; 3 is small"
    names = {s.name for s in batch.session} | {one.name}
    assert len(names) == 4, "session names must be unique"
    got = raw.get_session(name=one.name)
    assert got.name == one.name and got.labels.get("who") == "test"
    listed = {s.name for s in raw.list_sessions(ListSessionsRequest(database=db_name))}
    assert names <= listed, f"ListSessions is missing {names - listed}"
    for name in names:
        raw.delete_session(name=name)
    with pytest.raises(gexc.NotFound):
        raw.get_session(name=one.name)
    with pytest.raises(gexc.NotFound):
        raw.execute_sql(ExecuteSqlRequest(session=one.name, sql="SELECT 1"))
    listed = {s.name for s in raw.list_sessions(ListSessionsRequest(database=db_name))}
    assert not names & listed, "deleted sessions are still listed"


def test_multiplexed_session_read_write_with_mutation_key(sdb: SpannerDb, raw: SpannerClient) -> None:
    """What a multiplexed read-write transaction needs: BeginTransaction with mutation_key, then Commit."""
    mux = raw.create_session(CreateSessionRequest(database=sdb.database.name, session=Session(multiplexed=True)))
    assert mux.multiplexed, "CreateSession(multiplexed=true) must return a multiplexed session"
    mutation = Mutation(
        insert_or_update=Mutation.Write(
            table="Kv",
            columns=["K", "V"],
            values=[
                struct_pb2.ListValue(values=[struct_pb2.Value(string_value="mux"), struct_pb2.Value(string_value="1")])
            ],
        )
    )
    txn = raw.begin_transaction(
        BeginTransactionRequest(
            session=mux.name,
            options=TransactionOptions(read_write=TransactionOptions.ReadWrite()),
            mutation_key=mutation,
        )
    )
    assert txn.id, "BeginTransaction must return a transaction id"
    request = CommitRequest(session=mux.name, transaction_id=txn.id, mutations=[mutation])
    if txn.precommit_token:
        request.precommit_token = txn.precommit_token
    response = raw.commit(request)
    assert response.commit_timestamp, "Commit returns its timestamp"
    result = raw.execute_sql(ExecuteSqlRequest(session=mux.name, sql="SELECT V FROM Kv WHERE K = 'mux'"))
    assert [list(r) for r in result.rows] == [["1"]]


def test_multiplexed_session_serves_concurrent_transactions(sdb: SpannerDb, raw: SpannerClient) -> None:
    mux = raw.create_session(CreateSessionRequest(database=sdb.database.name, session=Session(multiplexed=True)))
    rw = TransactionOptions(read_write=TransactionOptions.ReadWrite())
    t1 = raw.begin_transaction(BeginTransactionRequest(session=mux.name, options=rw))
    t2 = raw.begin_transaction(BeginTransactionRequest(session=mux.name, options=rw))
    assert t1.id != t2.id, "two transactions on one multiplexed session need distinct ids"
    for i, txn in enumerate((t1, t2)):
        value = struct_pb2.ListValue(
            values=[struct_pb2.Value(string_value=f"c{i}"), struct_pb2.Value(string_value=str(i))]
        )
        request = CommitRequest(
            session=mux.name,
            transaction_id=txn.id,
            mutations=[Mutation(insert_or_update=Mutation.Write(table="Kv", columns=["K", "V"], values=[value]))],
        )
        if txn.precommit_token:
            request.precommit_token = txn.precommit_token
        raw.commit(request)
    result = raw.execute_sql(
        ExecuteSqlRequest(session=mux.name, sql="SELECT K, V FROM Kv WHERE K IN ('c0','c1') ORDER BY K")
    )
    assert [list(r) for r in result.rows] == [["c0", "0"], ["c1", "1"]]


def test_client_works_in_the_selected_session_mode(sdb: SpannerDb, raw: SpannerClient) -> None:
    """The official client with its defaults, and with multiplexed sessions turned off: every
    request names a session of this database that the server knows, multiplexed exactly when the
    client's mode is."""
    sdb.recorder.clear()
    with sdb.database.batch() as batch:
        batch.insert_or_update("Kv", ["K", "V"], [("mode", 1)])
    sdb.database.run_in_transaction(lambda tx: tx.insert_or_update("Kv", ["K", "V"], [("mode", 2)]))
    sdb.database.run_in_transaction(lambda tx: tx.execute_update("UPDATE Kv SET V = V + 1 WHERE K = 'mode'"))
    with sdb.database.snapshot() as snap:
        assert list(snap.execute_sql("SELECT V FROM Kv WHERE K = 'mode'")) == [[3]]

    created = [c for c in sdb.recorder.calls() if c.name in ("CreateSession", "BatchCreateSessions")]
    sessions = []
    for call in created:
        response = call.response()
        sessions += list(response.session) if call.name == "BatchCreateSessions" else [response]
    used = {
        c.request.session
        for c in sdb.recorder.calls()
        if c.name in ("Commit", "ExecuteSql", "ExecuteStreamingSql", "BeginTransaction")
    }
    by_name = {s.name: s for s in sessions}
    if sdb.multiplexed:
        mux = [s for s in sessions if s.multiplexed]
        assert mux, f"the client's default creates a multiplexed session; created: {sessions}"
        begins = sdb.recorder.calls("BeginTransaction")
        assert any("mutation_key" in c.request for c in begins), (
            "a multiplexed read-write transaction with only mutations sends BeginTransaction with mutation_key"
        )
    else:
        assert sessions and not any(s.multiplexed for s in sessions), f"sessions must be regular: {sessions}"
    assert used, "the batch, the two transactions and the read each name a session"
    # a session the client made before this test (its pool, its multiplexed session) is asked of the
    # server: GetSession returns it, under this database, with the mode it was created in
    kinds = {name: (by_name[name] if name in by_name else raw.get_session(name=name)).multiplexed for name in used}
    assert all(name.startswith(sdb.database.name + "/sessions/") for name in used), used
    assert set(kinds.values()) == {sdb.multiplexed}, kinds
