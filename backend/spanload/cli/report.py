"""`spanload report RUN_ID [RUN_ID...] -o FILE.html`: a run's self-contained HTML report, or the
comparison of 2 to 6 runs, from a running serve (``--server URL``) or the run store directly; and
the ``--html FILE`` of `spanload run`.

Exit codes: 0 written, 1 no such run or an unreachable server, 2 bad flags.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from spanload.cli.outcome import Outcome
from spanload.model.errors import EXIT_OK, RunError, RunInvalid, RunNotFound
from spanload.model.settings import get_settings


def report_html(
    run_ids: list[str], server: str | None, token: str | None, thresholds: Sequence[dict[str, Any]] = ()
) -> str:
    """The report of one run, or the comparison of 2 to 6, from ``server`` or the store; a run's
    with ``thresholds``' verdicts (a serve recomputes them from the same summary)."""
    if not 1 <= len(run_ids) <= 6:
        raise RunInvalid(f"report takes one run id, or 2 to 6 to compare (got {len(run_ids)})")
    if server is not None:
        from spanload.cli.remote import Server

        remote = Server(server, token or get_settings().api_token)
        if len(run_ids) == 1:
            expressions = [str(verdict["expression"]) for verdict in thresholds]
            return remote.request("GET", f"/runs/{run_ids[0]}/report", params={"threshold": expressions}).text
        return remote.request("GET", "/compare/report", params={"ids": ",".join(run_ids)}).text
    from spanload.cli.saved import open_store
    from spanload.control.report.build import compare_report, run_report
    from spanload.store import runs as run_store

    with open_store(get_settings()) as sessions, sessions() as session:
        rows = run_store.get_runs(session, run_ids)
        missing = [run_id for run_id, row in zip(run_ids, rows, strict=True) if row is None]
        if missing:
            raise RunNotFound(f"no run {', '.join(missing)} in the run store {get_settings().store_url}")
        found = [row for row in rows if row is not None]
        return run_report(session, found[0], thresholds) if len(found) == 1 else compare_report(session, found)


def write(path: Path | None, html: str) -> None:
    if path is None:
        sys.stdout.write(html)
        return
    try:
        path.write_text(html)
    except OSError as err:
        raise RunError(f"could not write {path}: {err.strerror}") from None


def main(args: SimpleNamespace) -> int:
    write(args.output, report_html(args.run_ids, args.server, args.token))
    if args.output is not None:
        sys.stderr.write(f"wrote {args.output}\n")
    return EXIT_OK


def write_run_report(args: SimpleNamespace, outcome: Outcome, path: Path, thresholds: Sequence[dict[str, Any]]) -> None:
    """`spanload run --html FILE`: the report of the run just done, from where it was saved, with
    its thresholds' verdicts (a run on a serve: the serve's report, asked for the same thresholds)."""
    if outcome.saved_in is None:
        raise RunInvalid("--html reports the saved run: drop --no-save")
    path.write_text(report_html([outcome.run_id], outcome.server, getattr(args, "token", None), thresholds))
