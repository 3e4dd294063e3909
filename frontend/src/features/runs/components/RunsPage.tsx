// Runs: every saved run in a table, with filters, sorting, multi-select and "Compare selected".
import { useCallback, useMemo, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { Empty, ErrorState, Loading } from "@/components/States";
import { LiveChangeBadge } from "@/components/LiveChanges";
import { StatusBadge } from "@/components/StatusBadge";
import { fetchPresets } from "@/lib/api/presets";
import { listRuns } from "@/lib/api/runs";
import { formatDate, formatDuration, formatMs, formatNumber, toMs } from "@/lib/format";
import { isActive, RUN_STATES, type RunPublic } from "@/lib/types";
import { useAsync } from "@/lib/useAsync";
import { headlines, runDuration, runTarget } from "../api/headlines";
import { type SortState, useSort } from "../hooks/useSort";

const PAGE_SIZE = 50;
const POLL_MS = 5000;
const MAX_COMPARE = 6;

type Column = "name" | "preset" | "target" | "status" | "started" | "duration" | "tps" | "updaterP99" | "notifyP50" | "readsP99";

const COLUMNS: { key: Column; label: string; numeric?: boolean }[] = [
  { key: "name", label: "Name" },
  { key: "preset", label: "Preset" },
  { key: "target", label: "Target" },
  { key: "status", label: "Status" },
  { key: "started", label: "Started" },
  { key: "duration", label: "Duration", numeric: true },
  { key: "tps", label: "Achieved tx/s", numeric: true },
  { key: "updaterP99", label: "Updater p99", numeric: true },
  { key: "notifyP50", label: "Notify p50", numeric: true },
  { key: "readsP99", label: "Reads p99", numeric: true },
];

function cellValue(run: RunPublic, key: Column): string | number | null {
  switch (key) {
    case "name":
      return run.name ?? run.id;
    case "preset":
      return run.preset ?? null;
    case "target":
      return runTarget(run);
    case "status":
      return run.status;
    case "started":
      return toMs(run.started_at ?? run.created_at);
    case "duration":
      return runDuration(run);
    default:
      return headlines(run)[key];
  }
}

const INITIAL_SORT: SortState<Column> = { key: "started", dir: "desc" };

export function RunsPage() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const status = params.get("status") ?? "";
  const preset = params.get("preset") ?? "";
  const name = params.get("name") ?? "";
  const offset = Number(params.get("offset") ?? 0) || 0;
  const [selected, setSelected] = useState<string[]>([]);

  // A filter left blank (or a status the server does not know, typed into the URL) is no filter.
  const state = RUN_STATES.find((s) => s === status);
  const runs = useAsync((signal) => listRuns({ status: state, preset: preset || undefined, name: name || undefined, limit: PAGE_SIZE, offset }, signal), [state, preset, name, offset], {
    pollMs: POLL_MS,
  });
  const presets = useAsync((signal) => fetchPresets(signal), []);

  const rows = useMemo(() => runs.data?.data ?? [], [runs.data]);
  const { sorted, sort, toggle } = useSort(rows, INITIAL_SORT, cellValue);

  const setFilter = useCallback(
    (key: string, value: string) => {
      const next = new URLSearchParams(params);
      if (value) next.set(key, value);
      else next.delete(key);
      if (key !== "offset") next.delete("offset");
      setParams(next, { replace: true });
    },
    [params, setParams],
  );

  const toggleSelected = (id: string) =>
    setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : s.length >= MAX_COMPARE ? s : [...s, id]));

  const canCompare = selected.length >= 2 && selected.length <= MAX_COMPARE;
  const count = runs.data?.count ?? 0;

  return (
    <section className="page" data-testid="runs-page">
      <div className="page-head">
        <h1>Runs</h1>
        <div className="actions">
          <button
            type="button"
            className="primary"
            disabled={!canCompare}
            data-testid="compare-selected"
            title={canCompare ? "" : `Select 2 to ${MAX_COMPARE} runs to compare`}
            onClick={() => navigate(`/compare?ids=${selected.join(",")}`)}
          >
            Compare selected ({selected.length})
          </button>
          <Link className="button" to="/runs/new" data-testid="new-run-link">
            New run
          </Link>
        </div>
      </div>

      <div className="filters" role="search">
        <label>
          Name
          <input type="search" defaultValue={name} placeholder="contains…" data-testid="filter-name" onChange={(e) => setFilter("name", e.target.value.trim())} />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setFilter("status", e.target.value)} data-testid="filter-status">
            <option value="">any</option>
            {RUN_STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Preset
          <select value={preset} onChange={(e) => setFilter("preset", e.target.value)} data-testid="filter-preset">
            <option value="">any</option>
            {(presets.data ?? []).map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
      </div>

      {runs.error && !runs.data ? (
        <ErrorState error={runs.error} onRetry={runs.reload} title="Could not load the runs" />
      ) : !runs.data ? (
        <Loading what="Loading runs" />
      ) : rows.length === 0 ? (
        <Empty>
          {status || preset || name ? "No run matches these filters." : "No runs yet."} <Link to="/runs/new">Start a run</Link>.
        </Empty>
      ) : (
        <>
          {runs.error && <p className="inline-error">Refreshing failed: {runs.error.message}</p>}
          <div className="table-scroll">
            <table className="table" data-testid="runs-table">
              <thead>
                <tr>
                  <th aria-label="select" />
                  {COLUMNS.map((c) => (
                    <th key={c.key} className={c.numeric ? "num" : undefined} aria-sort={sort.key === c.key ? (sort.dir === "asc" ? "ascending" : "descending") : "none"}>
                      <button type="button" className="sort" onClick={() => toggle(c.key)} data-testid={`sort-${c.key}`}>
                        {c.label}
                        {sort.key === c.key ? (sort.dir === "asc" ? " ▲" : " ▼") : ""}
                      </button>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {sorted.map((run) => {
                  const h = headlines(run);
                  const active = isActive(run.status);
                  return (
                    <tr key={run.id} data-testid="run-row" data-run-id={run.id} className={selected.includes(run.id) ? "selected" : undefined}>
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`select ${run.name ?? run.id}`}
                          checked={selected.includes(run.id)}
                          disabled={!selected.includes(run.id) && selected.length >= MAX_COMPARE}
                          onChange={() => toggleSelected(run.id)}
                          data-testid="run-select"
                        />
                      </td>
                      <td>
                        <Link to={active ? `/runs/${run.id}/live` : `/runs/${run.id}`} data-testid="run-link">
                          {run.name ?? run.id}
                        </Link>{" "}
                        <LiveChangeBadge changes={run.live_changes} />
                      </td>
                      <td>{run.preset ?? "—"}</td>
                      <td>{runTarget(run)}</td>
                      <td>
                        <StatusBadge status={run.status} />
                      </td>
                      <td>{formatDate(run.started_at ?? run.created_at)}</td>
                      <td className="num">{formatDuration(runDuration(run))}</td>
                      <td className="num">{formatNumber(h.tps)}</td>
                      <td className="num">{formatMs(h.updaterP99)}</td>
                      <td className="num">{formatMs(h.notifyP50)}</td>
                      <td className="num">{formatMs(h.readsP99)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <div className="pager">
            <span className="muted">
              {offset + 1}–{offset + rows.length} of {count}
            </span>
            <button type="button" disabled={offset === 0} onClick={() => setFilter("offset", String(Math.max(0, offset - PAGE_SIZE)))}>
              Previous
            </button>
            <button type="button" disabled={offset + rows.length >= count} onClick={() => setFilter("offset", String(offset + PAGE_SIZE))}>
              Next
            </button>
          </div>
        </>
      )}
    </section>
  );
}
