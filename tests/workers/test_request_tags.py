"""Issue 27: where the Python worker puts its tags, by google.spanner.v1.RequestOptions: request_tag on
queries and reads, transaction_tag on the requests of a read-write transaction and on Commit and
BatchWrite; a tag the caller set stays. The same cases as goworker's
TestTagRequestPutsEachTagWhereSpannerReadsIt."""

from __future__ import annotations

from typing import Any

import pytest
from google.cloud.spanner_v1 import (
    BatchWriteRequest,
    BeginTransactionRequest,
    CommitRequest,
    ExecuteBatchDmlRequest,
    ExecuteSqlRequest,
    ReadRequest,
    RequestOptions,
    TransactionOptions,
    TransactionSelector,
)

from spanload.spanner import request_tags
from spanload.spanner.request_tags import tag_request

TAG = "spanload-0123456789ab-poll"
RW = TransactionSelector(begin=TransactionOptions(read_write=TransactionOptions.ReadWrite()))
RO = TransactionSelector(single_use=TransactionOptions(read_only=TransactionOptions.ReadOnly(strong=True)))


@pytest.mark.parametrize(
    ("rpc", "request_", "request_tag", "transaction_tag"),
    [
        ("ExecuteStreamingSql", ExecuteSqlRequest(transaction=RW), TAG, TAG),
        ("StreamingRead", ReadRequest(transaction=RO), TAG, ""),
        ("ExecuteBatchDml", ExecuteBatchDmlRequest(transaction=TransactionSelector(id=b"t")), TAG, TAG),
        ("Commit", CommitRequest(), "", TAG),
        ("BatchWrite", BatchWriteRequest(), "", TAG),
        ("BeginTransaction", BeginTransactionRequest(options=RO.single_use), "", ""),
        ("BeginTransaction", BeginTransactionRequest(options=RW.begin), "", TAG),
        ("ExecuteSql", ExecuteSqlRequest(request_options=RequestOptions(request_tag="mine")), "mine", ""),
    ],
)
def test_each_tag_goes_where_spanner_reads_it(rpc: str, request_: Any, request_tag: str, transaction_tag: str) -> None:
    tag_request(rpc, request_, TAG)
    assert (request_.request_options.request_tag, request_.request_options.transaction_tag) == (
        request_tag,
        transaction_tag,
    )


@pytest.mark.parametrize(
    ("operation_tag", "hint", "set_sql"),
    [
        (TAG, f"/*@STATEMENT_TAG='{TAG}'*/ ", f"set spanner.statement_tag='{TAG}'"),  # PGAdapter's documented forms
        ("it's", "", "set spanner.statement_tag='it''s'"),  # the hint is not documented to carry these:
        ("a*/b", "", "set spanner.statement_tag='a*/b'"),  # the SET goes instead
        ("", "", None),  # outside a run
    ],
)
def test_pgadapter_statements_carry_the_tag_in_a_hint_or_else_a_set(
    operation_tag: str, hint: str, set_sql: str | None
) -> None:
    request_tags.configure(operation_tag, {})
    try:
        request_tags.use("poll")
        assert (request_tags.pg_statement_hint(), request_tags.pg_statement_tag_sql()) == (hint, set_sql)
    finally:
        request_tags.configure("", {})
        request_tags.use("")
