"""The load phase's fast mutation encoder sends the very bytes the client's own
``Batch.insert_or_update`` would, for every kind of value, and its batch commits them."""

from __future__ import annotations

import base64
import datetime as dt
import decimal

import pytest
from google.cloud.spanner_v1 import COMMIT_TIMESTAMP, Mutation
from google.cloud.spanner_v1.batch import _make_write_pb

from spanload.spanner import mutations

COLUMNS = ("Id", "Name", "Blob", "Score", "Flag", "Nothing", "At", "Day", "Amount", "Tags", "LastUpdated")
ROWS = [
    (
        k,
        f"name-{k}",
        base64.b64encode(bytes([k % 256]) * 9),
        k / 3,
        k % 2 == 0,
        None,
        dt.datetime(2026, 11, 24, 0, 0, k % 60, tzinfo=dt.UTC),
        dt.date(2026, 11, 24),
        decimal.Decimal("12.5"),
        [f"t{k}", None],
        COMMIT_TIMESTAMP,
    )
    for k in range(-3, 50)
] + [(1 << 62, "", b"", float("nan"), False, None, None, None, None, [], COMMIT_TIMESTAMP)]


def test_the_fast_encoding_is_byte_for_byte_the_clients() -> None:
    ours = mutations.insert_or_update("T", COLUMNS, ROWS)
    theirs = Mutation(insert_or_update=_make_write_pb("T", COLUMNS, ROWS))
    assert Mutation.pb(ours).SerializeToString() == Mutation.pb(theirs).SerializeToString()
    assert len(Mutation.pb(ours).insert_or_update.values) == len(ROWS)


def test_raw_bytes_are_refused_as_the_client_refuses_them() -> None:
    for encode in (
        lambda rows: mutations.insert_or_update("T", ("Id", "Blob"), rows),
        lambda rows: _make_write_pb("T", ("Id", "Blob"), rows),
    ):
        with pytest.raises(ValueError, match="not base64 encoded"):
            encode([(1, b"\xff\xfe raw")])
