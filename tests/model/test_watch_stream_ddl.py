"""The statement that creates a change_stream watch's stream, in one place (Watch.stream_ddl) for
both runtimes: the Python watcher runs it, the Go worker runs what the start message carries.
Expected texts follow Spanner's CREATE CHANGE STREAM syntax: GoogleSQL sets options with
``OPTIONS (...)``, the PostgreSQL dialect with ``WITH (...)``; ``value_capture_type = 'NEW_ROW'`` is
one of the documented capture types."""

from __future__ import annotations

from spanload.model.config import RunConfig
from spanload.model.protocol import Start
from spanload.model.workload import Dialect, Watch
from spanload.model.workload_file import validate_data

VERSIONS = {"version": "Version", "writer": "WriterId"}


def test_a_stream_without_versions_takes_the_default_capture() -> None:
    watch = Watch(table="Items", timestamp="Ts", mode="change_stream")
    assert watch.stream_ddl(Dialect.GOOGLESQL) == "CREATE CHANGE STREAM SpanloadWatch_Items FOR Items"
    assert watch.stream_ddl(Dialect.POSTGRESQL) == "CREATE CHANGE STREAM SpanloadWatch_Items FOR Items"


def test_versions_capture_the_new_row_in_each_dialects_syntax() -> None:
    watch = Watch(table="Items", timestamp="Ts", mode="change_stream", stream="S", versions=VERSIONS)
    assert (
        watch.stream_ddl(Dialect.GOOGLESQL)
        == "CREATE CHANGE STREAM S FOR Items OPTIONS (value_capture_type = 'NEW_ROW')"
    )
    assert (
        watch.stream_ddl(Dialect.POSTGRESQL) == "CREATE CHANGE STREAM S FOR Items WITH (value_capture_type = 'NEW_ROW')"
    )


def _start(mode: str) -> Start:
    definition = validate_data(
        {
            "name": "items",
            "knobs": {"m": {"default": "poll", "choices": ["poll", "change_stream"]}},
            "operations": {"noop": {"rate": 1, "steps": [{"sql": "SELECT 1"}]}},
            "watch": {"table": "Items", "timestamp": "Ts", "mode": mode, "versions": VERSIONS},
        }
    )
    config = RunConfig.model_validate({"workload": "definition", "definition": definition.model_dump(mode="json")})
    return Start(run_id="r", worker=0, workers=1, config=config)


def test_the_start_message_carries_a_change_stream_watchs_ddl_and_no_other() -> None:
    # the Go worker's versions e2e test sends this same text (goworker/internal/worker/versions_e2e_test.go)
    assert _start("change_stream").watch_stream_ddl == (
        "CREATE CHANGE STREAM SpanloadWatch_Items FOR Items OPTIONS (value_capture_type = 'NEW_ROW')"
    )
    assert _start("poll").watch_stream_ddl == ""
    # a watch whose mode is a knob may switch to its stream while the run goes on (issue 29): it carries it too
    assert _start("$m").watch_stream_ddl == _start("change_stream").watch_stream_ddl
