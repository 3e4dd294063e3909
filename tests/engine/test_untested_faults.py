"""Issue 30's "untested" list, faults of the target: a listener that accepts connections but never
answers (the probe ends at its deadline with a sentence, it does not hang)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from spanload.spanner import client as spanner_client
from tests.engine.conftest import LocalTarget

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """127.0.0.1:port that completes TCP handshakes (the kernel's backlog) and never sends a byte."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"127.0.0.1:{listener.getsockname()[1]}"


def test_the_probe_of_a_target_that_accepts_and_never_answers_ends_at_its_deadline(silent_listener: str) -> None:
    config = LocalTarget(silent_listener).config()
    client = spanner_client.make_client(config.target, silent_listener)
    try:
        with pytest.raises(spanner_client.TargetUnreachableError) as unreachable:
            spanner_client.probe(client, config.target, silent_listener, timeout_s=1.0)
    finally:
        client.close()
    # ended by the probe's own deadline (not UNAVAILABLE: the connection was accepted), named in a sentence
    assert str(unreachable.value).startswith(
        f"the local target at {silent_listener} did not answer: DEADLINE_EXCEEDED"
    ), unreachable.value
