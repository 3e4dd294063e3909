"""Spanner request and transaction tags naming a run and its operation, built here only; and the
names of the trace attributes that name them on OpenTelemetry spans.

Every Spanner request a worker makes carries ``RequestOptions.request_tag`` and (in a read-write
transaction) ``transaction_tag`` set to its operation's tag, ``spanload-<run>-<operation>``, so that
a run's statements can be told apart from an application's, or from another run's, in Cloud
Spanner's query, read, transaction and lock statistics (SPANNER_SYS, Query Insights).

Spanner's rules for both tags (``google.spanner.v1.RequestOptions``): printable ASCII (32-126), at
most 50 characters (longer values are truncated), leading underscores removed. So ``<run>`` is the
first :data:`RUN_ID_CHARS` characters of the run id (a uuid4's hex: 48 bits, plenty to tell runs
apart) and the operation's name is cut to what fits; any other character becomes ``_``.

The ``start`` message carries the tags of every operation the run may name
(:attr:`spanload.model.protocol.Start.tags`) and the run's own tag for anything else, so the Go
worker uses them as given and never rebuilds the format. A SPANNER_SYS row belongs to a run only if
its tag is the run's (:func:`is_runs`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

PREFIX = "spanload"
MAX_TAG_CHARS = 50  # Spanner truncates longer tags
RUN_ID_CHARS = 12
_NOT_ALLOWED = re.compile(r"[^\x20-\x7e]")

# Operations of the runtimes' own code, besides a definition's operations and TPC-C's transactions.
UPDATER = "updater"
READER = "reader"
WATCHER = "watcher"
PRELOAD = "preload"
STATS = "stats"  # the worker's own SPANNER_SYS reads
BUILT_IN_OPERATIONS = (UPDATER, READER, WATCHER, PRELOAD, STATS)

# Attributes of every span a worker's Spanner client makes (OTEL_EXPORTER_OTLP_ENDPOINT set).
SPAN_RUN_ID = "spanload.run_id"  # the whole run id
SPAN_OPERATION = "spanload.operation"  # the operation's name ("" outside one)
SPAN_WORKER = "spanload.worker"  # the worker's index in the run
SPAN_ATTRIBUTES = (SPAN_RUN_ID, SPAN_OPERATION, SPAN_WORKER)


def run_tag(run_id: str) -> str:
    """``spanload-1f2e3d4c5b6a``: the tag of anything a run does that names no operation."""
    return _allowed(f"{PREFIX}-{run_id[:RUN_ID_CHARS]}")[:MAX_TAG_CHARS]


def operation_tag(run_id: str, operation: str) -> str:
    """``spanload-1f2e3d4c5b6a-new_order``: at most 50 printable ASCII characters, as Spanner keeps."""
    return _allowed(f"{run_tag(run_id)}-{operation}")[:MAX_TAG_CHARS]


def operation_tags(run_id: str, operations: Iterable[str]) -> dict[str, str]:
    """The tag of each operation (and of the runtimes' built-in ones), for the ``start`` message."""
    return {op: operation_tag(run_id, op) for op in (*BUILT_IN_OPERATIONS, *operations)}


def is_runs(tag: str | None, run_tag_: str) -> bool:
    """Is ``tag`` (a SPANNER_SYS row's REQUEST_TAG or TRANSACTION_TAG) one of the run's?"""
    return bool(tag) and (tag == run_tag_ or str(tag).startswith(run_tag_ + "-"))


def _allowed(text: str) -> str:
    return _NOT_ALLOWED.sub("_", text)
