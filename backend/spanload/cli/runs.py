"""`spanload runs list|show|export|compare|delete`: saved runs, for CI to fetch and gate results.

With ``--server URL`` it asks a running `spanload serve` (``--token`` or ``SPANLOAD_API_TOKEN``);
without, it opens the run store of ``SPANLOAD_DATA_DIR`` (or ``SPANLOAD_DATABASE_URL``) directly.
Both answer the same documents (the API's), so ``--json`` is the same either way.

Exit codes: 0 done, 1 no such run or an unreachable server, 2 bad flags or ids.
"""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace
from typing import Any, Protocol

from rich import box
from rich.table import Table

from spanload.cli.console import show
from spanload.model.errors import EXIT_OK, RunError, RunInvalid, RunNotFound
from spanload.model.samples import Summary
from spanload.model.settings import get_settings
from spanload.model.state import RunState
from spanload.model.workload import WorkloadDefinition


class Runs(Protocol):
    """Where the runs are: a serve over HTTP, or the store."""

    def list_runs(self, status: str | None, name: str | None, limit: int) -> dict[str, Any]: ...
    def show(self, run_id: str) -> dict[str, Any]: ...
    def export(self, run_id: str, fmt: str) -> str: ...
    def compare(self, run_ids: list[str]) -> dict[str, Any]: ...
    def delete(self, run_id: str) -> None: ...


class RemoteRuns:
    def __init__(self, url: str, token: str | None) -> None:
        from spanload.cli.remote import Server

        self.server = Server(url, token)

    def list_runs(self, status: str | None, name: str | None, limit: int) -> dict[str, Any]:
        params = {k: v for k, v in {"status": status, "name": name, "limit": limit}.items() if v is not None}
        result: dict[str, Any] = self.server.json("GET", "/runs", params=params)
        return result

    def show(self, run_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self.server.json("GET", f"/runs/{run_id}")
        return result

    def export(self, run_id: str, fmt: str) -> str:
        return self.server.request("GET", f"/runs/{run_id}/export", params={"format": fmt}).text

    def compare(self, run_ids: list[str]) -> dict[str, Any]:
        result: dict[str, Any] = self.server.json("GET", "/compare", params={"ids": ",".join(run_ids)})
        return result

    def delete(self, run_id: str) -> None:
        self.server.request("DELETE", f"/runs/{run_id}")


class StoredRuns:
    """The same documents as the API's, built by the API's own functions over the store."""

    def __init__(self) -> None:
        from spanload.cli.saved import open_store

        self._store = open_store(get_settings())
        self.sessions = self._store.__enter__()

    def close(self) -> None:
        self._store.__exit__(None, None, None)

    def _row(self, session: Any, run_id: str) -> Any:
        from spanload.store import runs as run_store

        row = run_store.get_run(session, run_id)
        if row is None:
            raise RunNotFound(f"there is no run {run_id!r} in the run store {get_settings().store_url}")
        return row

    def list_runs(self, status: str | None, name: str | None, limit: int) -> dict[str, Any]:
        from spanload.api.schemas.runs import STORE_ONLY, RunsPublic, run_public
        from spanload.store import runs as run_store

        with self.sessions() as session:
            state = RunState(status) if status else None
            rows, count = run_store.list_runs(session, status=state, name=name, limit=limit)
            events = run_store.config_change_events(session, [r.id for r in rows])
            page = RunsPublic(data=[run_public(r, STORE_ONLY, events=events[r.id]) for r in rows], count=count)
        return page.model_dump(mode="json")

    def show(self, run_id: str) -> dict[str, Any]:
        from spanload.api.schemas.runs import STORE_ONLY, run_public
        from spanload.store import runs as run_store
        from spanload.store import summaries

        with self.sessions() as session:
            row = self._row(session, run_id)
            summary = summaries.summary_of(session, row) if not row.status.is_active else None
            events = run_store.config_change_events(session, [run_id])[run_id]
            return run_public(row, STORE_ONLY, summary=summary, events=events).model_dump(mode="json")

    def export(self, run_id: str, fmt: str) -> str:
        from spanload.api.samples import run_export
        from spanload.control.csv_export import intervals_csv, summary_csv
        from spanload.store import samples as sample_store
        from spanload.store import summaries

        with self.sessions() as session:
            row = self._row(session, run_id)
            if fmt == "csv":
                return intervals_csv(sample_store.list_samples(session, run_id))
            summary = None if row.status.is_active else summaries.summary_of(session, row)
            if fmt == "summary-csv":
                return summary_csv(row, summary)
            return run_export(session, row, summary).model_dump_json()

    def compare(self, run_ids: list[str]) -> dict[str, Any]:
        from spanload.api.compare import comparison
        from spanload.api.schemas.runs import STORE_ONLY

        with self.sessions() as session:
            return comparison(session, STORE_ONLY, ",".join(run_ids)).model_dump(mode="json")

    def delete(self, run_id: str) -> None:
        from spanload.store import runs as run_store

        with self.sessions() as session:
            row = self._row(session, run_id)
            if row.status.is_active:
                raise RunInvalid(f"run {run_id} is {row.status.value}: stop it first (spanload serve, or its terminal)")
            run_store.delete_run(session, run_id)


def _runs(args: SimpleNamespace) -> Runs:
    if args.server:
        return RemoteRuns(args.server, args.token or get_settings().api_token)
    return StoredRuns()


def main(args: SimpleNamespace) -> int:
    runs = _runs(args)
    try:
        return _verb(args, runs)
    finally:
        if isinstance(runs, StoredRuns):
            runs.close()


def _verb(args: SimpleNamespace, runs: Runs) -> int:
    out = sys.stdout
    match args.verb:
        case "list":
            if args.limit < 1:
                raise RunInvalid(f"--limit {args.limit} must be at least 1")
            page = runs.list_runs(args.status, args.name, args.limit)
            _print(json.dumps(page, indent=1) if args.json else list_table(page["data"]))
        case "show":
            run = runs.show(args.run_id)
            out.write(json.dumps(run, indent=1) + "\n" if args.json else "\n".join(show_lines(run)) + "\n")
        case "export":
            text = runs.export(args.run_id, args.format)
            if args.output is None:
                out.write(text)
            else:
                try:
                    args.output.write_text(text)
                except OSError as err:
                    raise RunError(f"could not write {args.output}: {err.strerror}") from None
        case "compare":
            if not 2 <= len(args.run_ids) <= 6:
                raise RunInvalid(f"compare takes 2 to 6 run ids (got {len(args.run_ids)})")
            result = runs.compare(args.run_ids)
            _print(json.dumps(result, indent=1) if args.json else compare_table(result))
        case "delete":
            runs.delete(args.run_id)
            out.write(json.dumps({"deleted": args.run_id}) + "\n" if args.json else f"deleted run {args.run_id}\n")
    return EXIT_OK


def _print(what: str | Table) -> None:
    """JSON as it is (scripts parse it); a table drawn by Rich."""
    if isinstance(what, str):
        sys.stdout.write(what + "\n")
    else:
        show(what)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def list_table(runs: list[dict[str, Any]]) -> Table:
    table = Table(box=box.SIMPLE_HEAD)
    for name, justify in (("id", "left"), ("status", "left"), ("created (UTC)", "left"), ("duration", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("p99 ms", justify="right")
    table.add_column("name")
    for r in runs:
        created = r["created_at"][:19].replace("T", " ")
        p99 = _ms(r["headline"].get("updater_p99_ms"))
        table.add_row(r["id"], r["status"], created, f"{r['duration_s']:.0f} s", p99, r["name"])
    return table


def show_lines(run: dict[str, Any]) -> list[str]:
    from spanload.cli.render import summary_table

    lines = [
        f"run {run['id']}: {run['name']} ({run['status']})",
        f"preset {run['preset'] or '-'}, target {run['target_kind']}, created {run['created_at']}, "
        f"{run['sample_count']} samples over {run['duration_s']:.0f} s",
    ]
    if run["failure_reason"]:
        lines.append(f"failed: {run['failure_reason']}")
    if run["notes"]:
        lines.append(f"notes: {run['notes']}")
    if run["summary"] is not None:
        definition = run["config"].get("definition")
        known = WorkloadDefinition.model_validate(definition) if definition is not None else None
        lines += ["", *summary_table(Summary.model_validate(run["summary"]), known)]
    return lines


def compare_table(result: dict[str, Any]) -> Table:
    """The key figures (else the first 20) of each run, with each change against the first."""
    runs = result["runs"]
    table = Table(box=box.SIMPLE_HEAD, caption="* beyond the runs' own interval-to-interval noise")
    table.add_column("metric")
    for i, r in enumerate(runs):
        table.add_column(f"{r['id']}{' (baseline)' if i == 0 else ''}", justify="right")
    by_name = {m["metric"]: m for m in result["metrics"]}
    for name in [k["metric"] for k in result["key_metrics"]] or list(by_name)[:20]:
        m = by_name[name]
        cells = []
        for i, value in enumerate(m["values"]):
            pct = m["percent_change"][i]
            cell = "-" if value is None else f"{value:,.4g}"
            if i and pct is not None:
                cell += f" ({pct:+.0f}%{'*' if m['significant'][i] else ''})"
            cells.append(cell)
        table.add_row(name, *cells)
    for entry in result["config_diff"]:
        table.add_row(f"config {entry['field']}", *(json.dumps(v) for v in entry["values"]))
    return table
