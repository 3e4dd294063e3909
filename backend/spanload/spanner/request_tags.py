"""Spanner request and transaction tags on every RPC of the Python worker: the one place they are set.

The run's tags (``spanload-<run>-<operation>``, :mod:`spanload.model.tags`) come in the ``start``
message (:func:`configure`); each operation says which it is on its thread (:func:`use`) before its
first RPC. :func:`install` wraps the data-API methods of the client's GAPIC ``SpannerClient`` (as
:mod:`spanload.spanner.deadline` does) and fills the request's ``RequestOptions`` where the caller
left them empty, so every call the official client makes for the operation carries them, whatever
the workload's code: a query, a read, a batch of DML, a BeginTransaction, a Commit, a BatchWrite.

Where each tag goes follows ``google.spanner.v1.RequestOptions``: ``request_tag`` on queries and
reads (it is ignored on Commit), ``transaction_tag`` on every request of a read-write transaction
(BeginTransaction, the statements that run in it, Commit) and on BatchWrite; read-only requests get
no transaction tag, since they belong to no read-write transaction.

The PostgreSQL interface through PGAdapter has no RequestOptions of its own: PGAdapter takes them from
its session variables, which :func:`pg_statement_tag_sql` and :func:`pg_transaction_tag_sql` set.
"""

from __future__ import annotations

import threading
from typing import Any

_REQUEST_TAGGED = frozenset({"ExecuteSql", "ExecuteStreamingSql", "Read", "StreamingRead", "ExecuteBatchDml"})
_TRANSACTION_ONLY = frozenset({"Commit", "BeginTransaction", "BatchWrite"})


class _Config:
    run_tag: str = ""
    by_operation: dict[str, str] = {}  # noqa: RUF012 (replaced whole by configure)


_config = _Config()
_local = threading.local()


def configure(run_tag: str, by_operation: dict[str, str]) -> None:
    """This process's run: its own tag and each operation's (from the ``start`` message)."""
    _config.run_tag = run_tag
    _config.by_operation = dict(by_operation)


def use(operation: str) -> None:
    """The calling thread's next RPCs belong to ``operation`` (until the next call)."""
    _local.tag = _config.by_operation.get(operation, _config.run_tag)
    _local.operation = operation


def current_operation() -> str:
    """The name of the calling thread's operation ("" before its first :func:`use`)."""
    return str(getattr(_local, "operation", ""))


def current() -> str:
    """The tag of the calling thread's operation: the run's own tag when it named none."""
    return str(getattr(_local, "tag", "") or _config.run_tag)


def pg_statement_hint() -> str:
    """For the ``pgadapter`` interface: the prefix that tags a statement with the calling thread's
    request tag in its own text, PGAdapter's documented statement hint ``/*@STATEMENT_TAG='tag'*/``
    (no extra round trip, unlike :func:`pg_statement_tag_sql`). "" outside a run, and for a tag the
    hint is not documented to carry (one holding a quote, or ``*/``, which ends the comment): that
    one goes by :func:`pg_statement_tag_sql`, a plain string literal."""
    tag = current()
    return f"/*@STATEMENT_TAG='{tag}'*/ " if tag and "'" not in tag and "*/" not in tag else ""


def pg_statement_tag_sql() -> str | None:
    """For the ``pgadapter`` interface: the statement to send before each statement so that PGAdapter
    sends it with the calling thread's request tag (``set spanner.statement_tag``, which applies to the
    next statement only). None outside a run."""
    tag = current()
    return f"set spanner.statement_tag='{_pg_quoted(tag)}'" if tag else None


def pg_transaction_tag_sql() -> str | None:
    """For the ``pgadapter`` interface: the statement to send right after ``BEGIN`` (before the first
    statement) of a read-write transaction so that PGAdapter tags the transaction
    (``set spanner.transaction_tag``). None outside a run."""
    tag = current()
    return f"set spanner.transaction_tag='{_pg_quoted(tag)}'" if tag else None


def _pg_quoted(text: str) -> str:
    return text.replace("'", "''")


def _read_write(pb: Any) -> bool:
    """Does this query or read (a raw protobuf) run in a read-write transaction (begun inline, or by id)?"""
    if not pb.HasField("transaction"):
        return False
    selector = pb.transaction
    if selector.HasField("begin"):
        return bool(selector.begin.HasField("read_write"))
    return bool(selector.id)


def tag_request(name: str, request: Any, tag: str) -> None:
    """Fill the request's empty tags with ``tag`` where Spanner reads them (``name``: the RPC). Works on
    the raw protobuf under the proto-plus message: through proto-plus it cost ~60 us an RPC."""
    pb = type(request).pb(request)
    options = pb.request_options
    if name in _REQUEST_TAGGED:
        if not options.request_tag:
            options.request_tag = tag
        if _read_write(pb) and not options.transaction_tag:
            options.transaction_tag = tag
    elif name in _TRANSACTION_ONLY:
        if name == "BeginTransaction" and not pb.options.HasField("read_write"):
            return
        if not options.transaction_tag:
            options.transaction_tag = tag


class _Tagged:
    """One GAPIC method that tags its request with the calling thread's operation."""

    def __init__(self, method: Any, name: str) -> None:
        self._method = method
        self._name = name
        self.__wrapped__ = method

    def __call__(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        tag = current()
        if tag and hasattr(request, "request_options"):
            tag_request(self._name, request, tag)
        return self._method(request, *args, **kwargs)


def install(api: Any) -> Any:
    """Tag every data-API request of a GAPIC ``SpannerClient`` (idempotent); returns ``api``."""
    methods: dict[Any, Any] = api._transport._wrapped_methods
    for key, method in list(methods.items()):
        name = _rpc_name(key)
        if not isinstance(method, _Tagged) and name in _REQUEST_TAGGED | _TRANSACTION_ONLY:
            methods[key] = _Tagged(method, name)
    return api


def _rpc_name(stub: Any) -> str:
    method = getattr(stub, "_method", None)
    if isinstance(method, bytes):
        method = method.decode()
    return str(method).rsplit("/", 1)[-1] if method else ""
