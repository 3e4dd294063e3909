// Run detail: a saved run's charts (zoom by brushing the overview), config, events, summary,
// notes and tags, and JSON/CSV export.
import { useMemo, useState } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { ConfigTable } from "@/components/ConfigTable";
import { definitionOrigin } from "@/lib/definition";
import { useDefinitionCharts } from "@/lib/useDefinitionCharts";
import { EventList } from "@/components/EventList";
import { BreakdownCharts } from "@/components/BreakdownChart";
import { RunCharts } from "@/components/RunCharts";
import { ParticipantsChart } from "@/components/ParticipantsChart";
import { ErrorState, Loading, NoSuchRun } from "@/components/States";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeChart } from "@/components/TimeChart";
import { ApiError } from "@/lib/api/client";
import { fetchSnapshot } from "@/lib/api/live";
import { deleteRun, exportUrl, getRun } from "@/lib/api/runs";
import { fetchSamples } from "@/lib/api/samples";
import { formatDate, formatDuration } from "@/lib/format";
import { hasParticipants, participantsRows } from "@/lib/participants";
import { chartsFor, configMarkers, offCharts, participantsFirst, RUN_CHARTS, toRows } from "@/lib/series";
import { isActive } from "@/lib/types";
import { useAsync } from "@/lib/useAsync";
import { useDebounced } from "@/lib/useDebounced";
import { runDuration } from "../api/headlines";
import { NotesEditor } from "./NotesEditor";
import { BreakdownSection } from "./BreakdownSection";
import { SummarySection } from "./SummarySection";
import { TpccSection } from "./TpccSection";
import { CapacitySection } from "./CapacitySection";

/** Points asked of the server for one chart: it downsamples (min/max preserving) beyond this. */
const MAX_POINTS = 600;
const OVERVIEW = RUN_CHARTS[0];
const ZOOM_DEBOUNCE_MS = 300;

export function RunDetailPage() {
  const { id = "" } = useParams();
  const navigate = useNavigate();
  const run = useAsync((signal) => getRun(id, signal), [id]);
  const overview = useAsync((signal) => fetchSamples(id, { max_points: MAX_POINTS }, signal), [id]);
  const [brush, setBrush] = useState<[number, number] | null>(null);
  const [brushKey, setBrushKey] = useState(0); // remounts the brush to reset it
  // Fetch the zoomed range at full resolution once the brush stops moving.
  const zoom = useDebounced(brush, ZOOM_DEBOUNCE_MS);
  const zoomed = useAsync(
    (signal) => (zoom ? fetchSamples(id, { from: zoom[0], to: zoom[1], max_points: MAX_POINTS }, signal) : Promise.resolve(null)),
    [id, zoom?.[0], zoom?.[1]],
  );
  const [deleteError, setDeleteError] = useState<string | null>(null);

  // A definition run's charts are its operations' (as on the live page); the first, the first
  // operation's throughput, is the overview to zoom by.
  const defined = useDefinitionCharts(run.data?.config, overview.data ?? []);
  const opCharts = defined.charts;
  const overviewChart = opCharts?.[0] ?? OVERVIEW;
  const overviewRows = useMemo(() => toRows(overview.data ?? [], opCharts ?? undefined), [overview.data, opCharts]);
  const rows = useMemo(() => toRows((zoom && zoomed.data) || overview.data || [], opCharts ?? undefined), [zoom, zoomed.data, overview.data, opCharts]);
  const participants = useMemo(() => participantsRows((zoom && zoomed.data) || overview.data || []), [zoom, zoomed.data, overview.data]);
  const snapshot = useAsync(() => fetchSnapshot(id), [id]);
  const events = useMemo(() => snapshot.data?.events ?? [], [snapshot.data]);
  const markers = useMemo(() => configMarkers(events, overview.data ?? []), [events, overview.data]);

  if (run.error instanceof ApiError && run.error.status === 404) return <NoSuchRun error={run.error} />;
  if (run.error && !run.data) return <ErrorState error={run.error} onRetry={run.reload} title="Could not load this run" />;
  if (!run.data) return <Loading what="Loading the run" />;
  const r = run.data;
  const off = opCharts ? defined.off : offCharts(r.config ?? null);
  const participantsChart = hasParticipants(participants) && <ParticipantsChart rows={participants} syncId="detail" when="at the end:" />;

  const remove = async () => {
    if (!window.confirm(`Delete run "${r.name ?? r.id}" and all its samples?`)) return;
    try {
      await deleteRun(r.id);
      navigate("/");
    } catch (err) {
      setDeleteError(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <section className="page" data-testid="run-detail-page" data-run-id={r.id}>
      <div className="page-head">
        <h1>
          {r.name ?? r.id} <StatusBadge status={r.status} />
        </h1>
        <div className="actions">
          {isActive(r.status) && (
            <Link className="button primary" to={`/runs/${r.id}/live`} data-testid="open-live">
              Open live view
            </Link>
          )}
          <a className="button" href={exportUrl(r.id, "json")} download data-testid="export-json">
            Export JSON
          </a>
          <a className="button" href={exportUrl(r.id, "csv")} download data-testid="export-csv">
            Export CSV
          </a>
          <button type="button" className="danger" onClick={remove} disabled={isActive(r.status)} title={isActive(r.status) ? "Stop the run first" : ""}>
            Delete
          </button>
        </div>
      </div>
      {deleteError && <p className="inline-error">{deleteError}</p>}
      <p className="meta-line">
        preset <strong>{r.preset ?? "—"}</strong> · target <strong>{r.config?.target?.kind ?? "—"}</strong> · runtime{" "}
        <strong data-testid="runtime">{r.config?.runtime ?? "python"}</strong>
        {definitionOrigin(r.config) && (
          <>
            {" "}
            · definition <strong data-testid="definition-origin">{definitionOrigin(r.config)}</strong>
          </>
        )}{" "}
        · started {formatDate(r.started_at ?? r.created_at)} ·
        duration {formatDuration(runDuration(r))}
      </p>
      {r.status === "failed" && (
        <div className="banner banner-error" role="alert" data-testid="run-failed">
          <strong>This run failed.</strong> {r.failure_reason ?? "No reason was recorded."}
        </div>
      )}
      {r.status !== "failed" && r.failure_reason && <p className="bad">{r.failure_reason}</p>}
      {r.config_problem && (
        <p className="muted small" data-testid="config-problem">
          {r.config_problem}
        </p>
      )}

      <h2>Charts</h2>
      {overview.error && !overview.data ? (
        <ErrorState error={overview.error} onRetry={overview.reload} title="Could not load the samples" />
      ) : !overview.data ? (
        <Loading what="Loading samples" />
      ) : overview.data.length === 0 ? (
        <p className="muted">This run recorded no samples.</p>
      ) : (
        <>
          {overviewChart && (
            <div className="overview">
              <TimeChart
                key={brushKey}
                id="overview"
                title="Zoom: drag the handles under this chart to zoom every chart below"
                unit={overviewChart.unit}
                rows={overviewRows}
                lines={overviewChart.lines}
                markers={markers}
                height={160}
                onBrush={setBrush}
              />
              {brush && (
                <p className="row small">
                  Showing t+{formatDuration(brush[0])} to t+{formatDuration(brush[1])}
                  {zoomed.loading && " (loading…)"}
                  <button
                    type="button"
                    onClick={() => {
                      setBrush(null);
                      setBrushKey((k) => k + 1);
                    }}
                    data-testid="reset-zoom"
                  >
                    Reset zoom
                  </button>
                </p>
              )}
            </div>
          )}
          {participantsFirst(r.config) && participantsChart}
          <RunCharts rows={rows} markers={markers} hideEmpty off={off} syncId="detail" charts={opCharts ?? chartsFor(r.config?.workload, off)} />
          {!participantsFirst(r.config) && participantsChart}
          <BreakdownCharts samples={(zoom && zoomed.data) || overview.data} syncId="detail" />
        </>
      )}

      <h2>Where the time goes</h2>
      <p className="muted small">
        Mean time per operation, from intended start to end, split into parts that add up to it. Client latency counts from the actual start (as the
        application sees it); server latency is the server-timing of the operation&apos;s RPCs.
      </p>
      <BreakdownSection summary={r.summary} />

      {r.summary?.tpcc && <TpccSection tpcc={r.summary.tpcc} />}
      {r.summary?.capacity && <CapacitySection capacity={r.summary.capacity} />}

      <h2>Summary</h2>
      <SummarySection summary={r.summary} status={r.status} />

      <div className="two-col">
        <div>
          <h2>Events</h2>
          {snapshot.error ? <ErrorState error={snapshot.error} onRetry={snapshot.reload} title="Could not load the events" /> : !snapshot.data ? <Loading what="Loading events" /> : <EventList events={events} />}
          <h2>Notes and tags</h2>
          <NotesEditor run={r} onSaved={run.setData} />
        </div>
        <div>
          <h2>Config</h2>
          {r.config ? <ConfigTable config={r.config} changes={r.live_changes} /> : <p className="muted">No config stored.</p>}
        </div>
      </div>
    </section>
  );
}
