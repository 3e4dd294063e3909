"""The worker protocol: versioned NDJSON messages that round-trip and that any language can write."""

from __future__ import annotations

import json
import logging

import pytest

from spanload.model import protocol
from spanload.model.config import RunConfig


def test_every_worker_message_round_trips() -> None:
    messages = [
        protocol.Hello(worker=1, pid=42, client="google-cloud-spanner 3.71.0"),
        protocol.Ready(worker=1),
        protocol.Report(worker=1, seq=3, t=1.5, interval_s=1.0, counters={"transactions": 5}, hdr={"x": "HISTF"}),
        protocol.WritersStopped(worker=1, writer_id="r/1", ledger=[(3, 2, 2)], uncertain_keys=[7]),
        protocol.WatcherLedger(worker=0, received=[(3, 2, 1)], duplicates=1, foreign=2),
        protocol.Stopped(worker=1),
        protocol.Error(worker=1, message="boom", fatal=True),
    ]
    for message in messages:
        line = protocol.encode(message)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert protocol.decode_from_worker(line) == message


def test_every_control_message_round_trips() -> None:
    config = RunConfig.model_validate({"schema": "tweets", "updater": {"transactions_per_second": 0.5}})
    messages = [
        protocol.Start(run_id="r", worker=0, workers=2, config=config, emulator_host="h:1", setup_schema=True),
        protocol.Begin(started_at=12.5),
        protocol.Patch(config=config),
        protocol.Pause(),
        protocol.Resume(),
        protocol.StopWriters(),
        protocol.Stop(),
    ]
    for message in messages:
        decoded = protocol.decode_to_worker(protocol.encode(message))
        assert decoded == message
    start = protocol.decode_to_worker(protocol.encode(messages[0]))
    assert isinstance(start, protocol.Start) and start.config.schema_.value == "tweets"


def test_a_hand_written_line_decodes_like_a_go_worker_would_send_it() -> None:
    line = json.dumps(
        {"type": "report", "v": 1, "worker": 2, "seq": 0, "t": 10.0, "interval_s": 1.0, "counters": {"reads": 9}}
    )
    report = protocol.decode_from_worker(line)
    assert isinstance(report, protocol.Report) and report.counters == {"reads": 9}


def test_unknown_type_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert protocol.decode_from_worker('{"type": "telemetry", "v": 1}') is None
    assert "telemetry" in caplog.text


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ('{"type": "ready", "v": 2, "worker": 0}', "version 2"),
        ("not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "ready", "v": 1}', "bad 'ready'"),
    ],
)
def test_bad_lines_raise_protocol_errors(line: str, match: str) -> None:
    with pytest.raises(protocol.ProtocolError, match=match):
        protocol.decode_from_worker(line)
