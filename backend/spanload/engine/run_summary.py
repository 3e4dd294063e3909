"""A run's summary, assembled once at its end from the aggregator and what the workers said: the
figures, the capacity search's result, TPC-C's verdict, how the stop went, the reconciliation of
the watcher's ledger, and each worker's cost."""

from __future__ import annotations

from spanload.engine.reconcile import reconcile
from spanload.engine.run_handles import RunHandle
from spanload.engine.tpcc_verdict import tpcc_summary
from spanload.engine.transports import WorkerTransport
from spanload.model import protocol
from spanload.model.config import Workload
from spanload.model.samples import StopInfo, Summary, WorkerCost


def assemble_summary(
    run: RunHandle,
    grace_s: float,
    killed: list[int],
    graceful: bool,
    ledgers: list[protocol.WritersStopped] | None,
) -> Summary | None:
    """The run's summary (None if it never began). ``graceful``: the workers were given the stop's
    grace (``grace_s``), ``killed`` those that did not exit within it; ``ledgers``: every writer's
    ledger when the writers stopped by themselves, which the watcher's is reconciled against."""
    if run.aggregator is None:
        return None
    summary = run.aggregator.summary()
    if run.capacity is not None:
        summary.capacity = run.capacity.search.final()
    if run.config.workload is Workload.TPCC:
        summary.tpcc = tpcc_summary(run.aggregator, run.config, run.tpcc_checked)
    if run.stop_deadline is not None and graceful:
        summary.stop = StopInfo(graceful=not killed, grace_s=grace_s, killed_workers=killed, detail=run.stop_detail)
    if ledgers is not None and run.watcher_ledger is not None:
        summary.reconciliation = reconcile(ledgers, run.watcher_ledger)
    summary.workers = [
        worker_cost(w.hello.result(), w.transport, *run.aggregator.worker_usage(w.index))
        for w in run.workers
        if w.hello.done() and not w.hello.cancelled() and w.hello.exception() is None
    ]
    return summary


def worker_cost(hello: protocol.Hello, transport: WorkerTransport, operations: int, cpu_s: float | None) -> WorkerCost:
    """A summary's line for one worker: who it said it was, where it ran, and what its load cost."""
    return WorkerCost(
        index=hello.worker,
        runtime=hello.language,
        pid=hello.pid,
        host=hello.host or transport.host,
        node=transport.node,
        operations=operations,
        cpu_s=cpu_s,
        cpu_ms_per_op=cpu_s * 1000 / operations if cpu_s is not None and operations else None,
    )


def worker_cpu(run: RunHandle) -> list[float] | None:
    """Each worker's CPU seconds since begin, by index; None while one has not said."""
    if run.aggregator is None:
        return None
    cpu = [run.aggregator.worker_usage(w.index)[1] for w in run.workers]
    return None if None in cpu else [c or 0.0 for c in cpu]
