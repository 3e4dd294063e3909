"""A pgadapter run on a machine without Java or without PGAdapter's jars stops before any worker
starts, with one sentence saying what to install (never a traceback)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from spanload.engine import pgadapter_run
from spanload.engine.supervisor import Supervisor
from spanload.model.config import RunConfig
from spanload.model.settings import Settings
from spanload.model.workload_file import parse_definition
from spanload.spanner.pgadapter import PGAdapterError
from tests.engine.test_preload import PreloadRecorder

SHOP_PG = Path(__file__).parents[2] / "workloads" / "shop_pg.yaml"


def pgadapter_config() -> RunConfig:
    definition = parse_definition(SHOP_PG.read_text(), SHOP_PG.name).model_dump(mode="json", exclude_unset=True)
    return RunConfig.model_validate(
        {"workload": "definition", "definition": definition, "client": {"interface": "pgadapter"}}
    )


def test_a_missing_java_names_what_to_install(tmp_path: Path) -> None:
    sink = PreloadRecorder()
    supervisor = Supervisor(Settings(java=str(tmp_path / "java")), sink)
    with pytest.raises(PGAdapterError, match=r"needs Java 17 .* apt-get install openjdk-17-jre-headless"):
        asyncio.run(supervisor.start("no-java", pgadapter_config()))
    assert sink.states == []  # refused before the run began: no worker, no state


def test_missing_jars_say_to_run_make_install(tmp_path: Path) -> None:
    with pytest.raises(PGAdapterError, match=rf"not in {tmp_path}: run `make install`"):
        pgadapter_run.check_installed(Settings(pgadapter_dir=tmp_path))


def test_a_running_pgadapter_named_in_the_config_is_used_as_it_is() -> None:
    config = pgadapter_config()
    assert pgadapter_run.needs_pgadapter(config)
    named = config.model_copy(update={"client": config.client.model_copy(update={"pgadapter_host": "127.0.0.1:5432"})})
    assert not pgadapter_run.needs_pgadapter(named)
