"""Issue 27: the request/transaction tag of a run's operation, built once (model/tags.py) to
Spanner's documented rules for RequestOptions tags: printable ASCII (32-126), at most 50 characters."""

from __future__ import annotations

from spanload.model import tags
from spanload.model.config import RunConfig
from spanload.model.protocol import Start, decode_to_worker, encode

RUN = "0123456789abcdef0123456789abcdef"  # a uuid4's hex, as the run service makes them


def test_an_operation_tag_names_the_run_and_the_operation() -> None:
    assert tags.run_tag(RUN) == "spanload-0123456789ab"
    assert tags.operation_tag(RUN, "new_order") == "spanload-0123456789ab-new_order"


def test_a_tag_keeps_to_spanners_limits() -> None:
    long = tags.operation_tag(RUN, "an_operation_whose_name_is_far_too_long_for_a_tag")
    assert long == "spanload-0123456789ab-an_operation_whose_name_is_f" and len(long) == 50
    assert tags.operation_tag(RUN, "caf\u00e9\tx") == "spanload-0123456789ab-caf__x"


def test_a_row_is_the_runs_only_with_its_tag() -> None:
    mine = tags.run_tag(RUN)
    assert tags.is_runs(f"{mine}-poll", mine) and tags.is_runs(mine, mine)
    assert not tags.is_runs("spanload-0123456789abc-poll", mine)  # another run id that starts alike
    assert not tags.is_runs("", mine) and not tags.is_runs(None, mine)
    assert not tags.is_runs("app-poll", mine)


def test_the_start_message_carries_every_operations_tag() -> None:
    start = Start(run_id=RUN, worker=0, workers=1, config=RunConfig())
    decoded = decode_to_worker(encode(start))
    assert isinstance(decoded, Start)
    assert decoded.run_tag == "spanload-0123456789ab"
    assert decoded.tags["watcher"] == "spanload-0123456789ab-watcher"
    assert decoded.tags["new_order"] == "spanload-0123456789ab-new_order"
    assert set(tags.BUILT_IN_OPERATIONS) <= set(decoded.tags)


def test_the_pgadapter_statements_carry_the_operations_tag() -> None:
    """PGAdapter's session variables (its samples: ``set spanner.statement_tag='...'`` before a
    statement, ``set spanner.transaction_tag='...'`` after BEGIN)."""
    from spanload.spanner import request_tags

    start = Start(run_id=RUN, worker=0, workers=1, config=RunConfig())
    request_tags.configure(start.run_tag, start.tags)
    try:
        request_tags.use("watcher")
        assert request_tags.pg_statement_tag_sql() == "set spanner.statement_tag='spanload-0123456789ab-watcher'"
        assert request_tags.pg_transaction_tag_sql() == "set spanner.transaction_tag='spanload-0123456789ab-watcher'"
    finally:
        request_tags.configure("", {})
        request_tags.use("")
