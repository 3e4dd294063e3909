"""The Go worker's names are generated from model/ (spanload.model.names_go) and committed; this
fails when the committed file and the generator's output differ, so a name changed on one side only
cannot ship."""

from __future__ import annotations

from pathlib import Path

from spanload.model import names_go
from spanload.model.op_metrics import OpCounter
from spanload.model.protocol import Counter, ErrorCode
from spanload.model.samples import Gauge, Op

REPO = Path(__file__).parents[2]


def test_the_committed_go_names_are_the_generators_output() -> None:
    committed = (REPO / names_go.GO_FILE).read_text()
    assert committed == names_go.render(), (
        f"{names_go.GO_FILE} is stale: python -m spanload.model.names_go > {names_go.GO_FILE}"
    )


def test_every_declared_name_is_in_the_go_file() -> None:
    text = names_go.render()
    for value in [Counter.TRANSACTIONS, ErrorCode.SESSION_POOL_TIMEOUT, *Op, *Gauge, *OpCounter]:
        assert f'"{value}"' in text


def test_go_names_keep_initialisms() -> None:
    assert names_go.go_name("Gauge", "UPDATER_TARGET_TPS") == "GaugeUpdaterTargetTPS"
    assert names_go.go_name("Gauge", "SERVER_CPU_PER_COMMIT_MS") == "GaugeServerCPUPerCommitMs"
