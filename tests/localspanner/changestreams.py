"""Reading a change stream through the official client: the read function's query, its
ChangeRecord rows flattened into plain dicts, and a reader that follows every partition."""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.cloud.spanner_v1 import param_types
from google.cloud.spanner_v1.database import Database

HEARTBEAT_MS = 100


def read_sql(stream: str) -> str:
    return (
        f"SELECT ChangeRecord FROM READ_{stream} ("
        "start_timestamp => @start, end_timestamp => @end, partition_token => @token, "
        "heartbeat_milliseconds => @hb)"
    )


def _plain(v: Any) -> Any:
    """JsonObject values of the client to plain JSON values."""
    if v is None:
        return None
    if hasattr(v, "serialize"):
        s = v.serialize()
        return None if s is None else json.loads(s)
    return v


def query(
    database: Database,
    stream: str,
    start: dt.datetime,
    end: dt.datetime | None,
    token: str | None,
    hb: int = HEARTBEAT_MS,
) -> list[dict[str, Any]]:
    """Every record one read function call returns, in order, each a dict with its kind."""
    out: list[dict[str, Any]] = []
    with database.snapshot() as snap:
        rows = snap.execute_sql(
            read_sql(stream),
            params={"start": start, "end": end, "token": token, "hb": hb},
            param_types={
                "start": param_types.TIMESTAMP,
                "end": param_types.TIMESTAMP,
                "token": param_types.STRING,
                "hb": param_types.INT64,
            },
        )
        for row in rows:
            for rec in row[0]:
                data, beats, kids = rec
                for d in data:
                    out.append(
                        {
                            "kind": "data",
                            "commit_timestamp": d[0],
                            "record_sequence": d[1],
                            "server_transaction_id": d[2],
                            "is_last": d[3],
                            "table_name": d[4],
                            "column_types": [
                                {"name": c[0], "type": _plain(c[1]), "is_primary_key": c[2], "ordinal_position": c[3]}
                                for c in d[5]
                            ],
                            "mods": [
                                {"keys": _plain(m[0]), "new_values": _plain(m[1]), "old_values": _plain(m[2])}
                                for m in d[6]
                            ],
                            "mod_type": d[7],
                            "value_capture_type": d[8],
                            "number_of_records_in_transaction": d[9],
                            "number_of_partitions_in_transaction": d[10],
                            "transaction_tag": d[11],
                            "is_system_transaction": d[12],
                        }
                    )
                for b in beats:
                    out.append({"kind": "heartbeat", "timestamp": b[0]})
                for c in kids:
                    out.append(
                        {
                            "kind": "children",
                            "start_timestamp": c[0],
                            "record_sequence": c[1],
                            "children": [{"token": k[0], "parents": list(k[1])} for k in c[2]],
                        }
                    )
    return out


Read = Callable[[Database, str, dt.datetime, dt.datetime | None, str | None], list[dict[str, Any]]]


@dataclass
class Follower:
    """Reads every partition of a stream between start and end, following children. ``read`` is one
    read function call's records as :func:`query` gives them (the PostgreSQL dialect has its own)."""

    database: Database
    stream: str
    start: dt.datetime
    end: dt.datetime
    read: Read = query
    records: list[dict[str, Any]] = field(default_factory=list)
    partitions: list[str] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self) -> None:
        initial = self.read(self.database, self.stream, self.start, self.end, None)
        threads = [self._spawn(c["token"], r["start_timestamp"]) for r in initial for c in r["children"]]
        while threads:
            threads.pop().join()
        if self.errors:
            raise self.errors[0]

    def _spawn(self, token: str, start: dt.datetime) -> threading.Thread:
        t = threading.Thread(target=self._read, args=(token, start))
        t.start()
        return t

    def _read(self, token: str, start: dt.datetime) -> None:
        try:
            recs = self.read(self.database, self.stream, start, self.end, token)
            kids: list[threading.Thread] = []
            with self.lock:
                self.partitions.append(token)
                self.records.extend(r | {"partition": token} for r in recs)
            for r in recs:
                if r["kind"] == "children":
                    kids.extend(self._spawn(c["token"], r["start_timestamp"]) for c in r["children"])
            for k in kids:
                k.join()
        except BaseException as err:  # reaches run() at once: it re-raises the first one
            with self.lock:
                self.errors.append(err)


def assert_children_deliver_each_commit_once(
    follower: Follower, commits: list[tuple[dt.datetime, int, int]], key: str, value: str
) -> None:
    """What a follower of every child partition read after its table's split divided: each child
    names its parent, every commit ``(commit timestamp, key, value)`` came exactly once, and within
    one partition's records a key's changes come in commit order (Spanner's change stream guarantees,
    for either dialect: ``key`` / ``value`` are the column names of the table's key and value)."""
    kids = [r for r in follower.records if r["kind"] == "children"]
    assert kids, "the table's split divided but no child partitions record came"
    for r in kids:
        assert [c["parents"] for c in r["children"]] == [[r["partition"]]] * len(r["children"])
    data = [r for r in follower.records if r["kind"] == "data"]
    got = sorted(
        (r["commit_timestamp"], int(m["keys"][key]), int(m["new_values"][value])) for r in data for m in r["mods"]
    )
    assert got == sorted(commits)
    per_key: dict[tuple[str, int], list[dt.datetime]] = {}
    for r in data:
        for m in r["mods"]:
            per_key.setdefault((r["partition"], int(m["keys"][key])), []).append(r["commit_timestamp"])
    assert all(v == sorted(v) for v in per_key.values())
    assert len(follower.partitions) > 1
