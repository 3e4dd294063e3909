"""A TPC-C run's verdict: its figures per transaction type and tpmC, with worker 0's consistency
check, and the reason a failed check fails the run."""

from __future__ import annotations

from spanload.engine.aggregator import Aggregator
from spanload.model import protocol
from spanload.model.config import RunConfig
from spanload.model.tpcc import TpccSummary
from spanload.model.tpcc import summarize as summarize_tpcc


def tpcc_summary(aggregator: Aggregator, config: RunConfig, checked: protocol.TpccChecked | None) -> TpccSummary:
    """A TPC-C run's figures per type and tpmC, with worker 0's consistency verdicts."""
    summary = summarize_tpcc(
        aggregator.counters(), max(aggregator.last_t - aggregator.started_at, 0.0), config.tpcc.warehouses
    )
    if checked is None:
        summary.consistency_error = "not checked: the run did not stop normally"
    else:
        summary.consistency, summary.consistency_error = dict(checked.consistency), checked.error
    return summary


def inconsistent(checked: protocol.TpccChecked | None) -> str | None:
    """The failure reason of a TPC-C run whose consistency check failed, else None."""
    if checked is None:
        return None
    failed = [f"{name} {verdict}" for name, verdict in sorted(checked.consistency.items()) if verdict != "ok"]
    if failed:
        return "TPC-C consistency: " + "; ".join(failed)
    if checked.error is not None:
        return f"TPC-C consistency could not be checked: {checked.error}"
    return None
