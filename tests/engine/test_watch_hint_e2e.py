"""The change watcher's definition (workloads/change_watcher.yaml) polls through its index with the
FORCE_INDEX table hint, or without it (knob ``table_hint``, the old ``watcher.table_hint``), on both
runtimes, against the local Spanner. Only ``batch_insert`` writes (new keys, each written once), so
the watcher must receive exactly the rows the table holds afterwards (read with the official client),
hint or not: a hinted poll the server refused would fail the polls and the final drain."""

from __future__ import annotations

import pytest

from spanload.model.builtin_convert import builtin_definition
from spanload.model.config import WorkerRuntime
from spanload.model.samples import Op
from tests.engine.conftest import LocalTarget
from tests.engine.test_definition_e2e import count, create_schema, query, run

pytestmark = pytest.mark.timeout(240)


@pytest.mark.parametrize("runtime", [WorkerRuntime.PYTHON, WorkerRuntime.GO])
@pytest.mark.parametrize("hint", [True, False])
def test_the_watch_receives_every_new_row_with_or_without_the_hint(
    local_spanner: LocalTarget, runtime: WorkerRuntime, hint: bool
) -> None:
    definition = builtin_definition("change_watcher")
    body = {
        "workload": "definition",
        "definition": definition.model_dump(mode="json", exclude_unset=True),
        "duration_s": 3.0,
    }
    legacy = {  # the old sections, as a preset, a saved config or the CLI's flags give them
        "updater": {"mode": "batch_insert", "transactions_per_second": 20, "batch_rows": 3, "parallelism": 4},
        "watcher": {"table_hint": hint, "poll_interval_ms": 200},
    }
    config = local_spanner.config(body, runtime=runtime).merged(legacy)
    assert config.knob_values()["table_hint"] is hint
    create_schema(local_spanner, config, definition)
    summary, _ = run(config, f"hint-{runtime.value}-{hint}")

    ((rows,),) = query(local_spanner, config, "SELECT COUNT(*) FROM Singers")
    assert summary.totals.errors == 0, summary.errors_by_code
    assert Op.WATCHER_POLL_FAILED not in summary.latency
    assert rows == 3 * count(summary, "batch_insert") > 0
    assert summary.totals.received_changes == rows
