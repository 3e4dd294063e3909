"""The run's named address wins over a SPANNER_EMULATOR_HOST left in the environment.

The official client reads the variable when it is made and sends its admin RPCs there, whatever
``api_endpoint`` says. Under the full test suite (where a fixture sets the variable for another
server) a `serve` run created its database on that other server while its data RPCs went to its
own, and the database was "not found" once its own server restarted."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from spanload.model.config import Target, TargetKind
from spanload.spanner.client import TargetError, make_client
from spanload.spanner.local_server import LocalSpanner, start_local_spanner
from tests.engine.conftest import LocalTarget

DEAD_ADDRESS = "127.0.0.1:1"  # nothing listens on port 1


@pytest.fixture
def other_server() -> Iterator[LocalSpanner]:
    """A second local Spanner (in memory): the one the environment names."""
    server = start_local_spanner()
    try:
        yield server
    finally:
        server.stop()


def instance_exists(address: str, instance_id: str) -> bool:
    client = make_client(Target(kind=TargetKind.LOCAL), address)
    try:
        return bool(client.instance(instance_id).exists())
    finally:
        client.close()


def test_admin_rpcs_go_to_the_named_local_spanner_not_to_the_environments_host(
    local_spanner: LocalTarget, other_server: LocalSpanner, monkeypatch: pytest.MonkeyPatch
) -> None:
    instance_id = f"addr-{uuid.uuid4().hex[:10]}"
    monkeypatch.setenv("SPANNER_EMULATOR_HOST", other_server.address)
    client = make_client(Target(kind=TargetKind.LOCAL), local_spanner.address)
    try:
        config = f"projects/{client.project}/instanceConfigs/emulator-config"
        client.instance(instance_id, configuration_name=config, node_count=1).create().result(timeout=30)
    finally:
        client.close()
    monkeypatch.delenv("SPANNER_EMULATOR_HOST")
    where = {
        name: instance_exists(address, instance_id)
        for name, address in (("named", local_spanner.address), ("environment's", other_server.address))
    }
    assert where == {"named": True, "environment's": False}


def test_a_cloud_target_refuses_a_leftover_emulator_host_with_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPANNER_EMULATOR_HOST", DEAD_ADDRESS)
    with pytest.raises(TargetError) as err:
        make_client(Target(kind=TargetKind.CLOUD), None)
    assert str(err.value) == (
        f"SPANNER_EMULATOR_HOST={DEAD_ADDRESS} is set, and the Spanner client would send a cloud "
        "target's requests there; unset it to reach Cloud Spanner"
    )
