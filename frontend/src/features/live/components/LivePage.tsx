// Live run: charts updating every interval, config-change markers, the control panel, run
// controls and a status line. Survives reloads and backend restarts (see useLiveRun).
import { lazy, Suspense, useEffect, useMemo, useState } from "react";
import { Link, useParams } from "react-router-dom";
import { BreakdownCharts } from "@/components/BreakdownChart";
import { RunCharts } from "@/components/RunCharts";
import { NoSuchRun } from "@/components/States";
import { ApiError } from "@/lib/api/client";
import { getRun, pauseRun, resumeRun, stopRun } from "@/lib/api/runs";
import { useDefinitionCharts } from "@/lib/useDefinitionCharts";
import { chartsFor, configMarkers, emptyReasons, offCharts, participantsFirst, toRows } from "@/lib/series";
import { withPlan } from "@/lib/profile";
import { isActive } from "@/lib/types";
import { useAsync } from "@/lib/useAsync";
import { useLiveRun } from "../hooks/useLiveRun";
import { ControlPanel } from "./ControlPanel";
import { OperationsNow } from "./OperationsNow";
import { ParticipantsChart } from "@/components/ParticipantsChart";
import { hasParticipants, participantsRows } from "@/lib/participants";
import { PreloadProgress } from "./PreloadProgress";
import { StatusLine } from "./StatusLine";
import { ProfileControls } from "./ProfileControls";

const CapacityLive = lazy(() => import("./CapacityLive"));

const RUN_CONTROLS = { pause: pauseRun, resume: resumeRun, stop: stopRun } as const;

const ENDED: Partial<Record<string, string>> = {
  finished: "The run has finished.",
  failed: "The run failed.",
  interrupted: "The run was interrupted: the control plane stopped while it was going.",
};

function useSecondsUntil(at: number | null): number | null {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (at === null) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [at]);
  return at === null ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export function LivePage() {
  const { id = "" } = useParams();
  const live = useLiveRun(id);
  const run = useAsync((signal) => getRun(id, signal), [id]);
  const [action, setAction] = useState<{ busy: string | null; error: string | null }>({ busy: null, error: null });
  const retryIn = useSecondsUntil(live.connection === "reconnecting" ? live.retryAt : null);

  // A definition run's charts are generated from its definition: each operation's, then errors by code.
  const defined = useDefinitionCharts(live.config, live.samples);
  const { definition, charts: opCharts } = defined;
  const rows = useMemo(() => toRows(live.samples, opCharts ?? undefined), [live.samples, opCharts]);
  const participants = useMemo(() => participantsRows(live.samples), [live.samples]);
  const markers = useMemo(() => configMarkers(live.events, live.samples), [live.events, live.samples]);
  const emptyText = useMemo(() => (definition ? defined.emptyText : emptyReasons(live.config)), [definition, defined.emptyText, live.config]);
  const off = useMemo(() => (definition ? defined.off : offCharts(live.config)), [definition, defined.off, live.config]);
  const planned = useMemo(() => withPlan(rows, opCharts ?? chartsFor(live.config?.workload, off), live.config, live.events), [rows, opCharts, off, live.config, live.events]);
  const latest = live.samples[live.samples.length - 1];
  const status = live.status ?? run.data?.status ?? null;
  const active = isActive(status);
  const finished = status !== null && !active;

  if (run.error instanceof ApiError && run.error.status === 404) return <NoSuchRun error={run.error} />;

  const control = async (verb: "pause" | "resume" | "stop") => {
    setAction({ busy: verb, error: null });
    try {
      await RUN_CONTROLS[verb](id);
      setAction({ busy: null, error: null });
    } catch (err) {
      setAction({ busy: null, error: err instanceof Error ? err.message : String(err) });
    }
  };

  const name = run.data?.name ?? live.config?.name ?? id;
  const participantsChart = hasParticipants(participants) && <ParticipantsChart rows={participants} syncId="live" />;
  return (
    <section className="page live-page" data-testid="live-page" data-run-id={id} data-status={status ?? ""} data-connection={live.connection}>
      <div className="page-head">
        <h1>
          {name}
          {live.config?.runtime && (
            <span className="muted small" data-testid="runtime">
              {" "}
              {live.config.runtime} workers
            </span>
          )}
        </h1>
        <div className="actions">
          {status === "paused" ? (
            <button type="button" onClick={() => control("resume")} disabled={!!action.busy} data-testid="resume-run">
              Resume
            </button>
          ) : (
            <button type="button" onClick={() => control("pause")} disabled={!!action.busy || status !== "running"} data-testid="pause-run">
              Pause
            </button>
          )}
          <button type="button" className="danger" onClick={() => control("stop")} disabled={!!action.busy || !active || status === "stopping"} data-testid="stop-run">
            {action.busy === "stop" || status === "stopping" ? "Stopping…" : "Stop"}
          </button>
          <Link className="button" to={`/runs/${id}`} data-testid="run-detail-link">
            Details
          </Link>
        </div>
      </div>

      {live.connection !== "open" && !finished && (
        <div className="banner banner-warn" role="status" data-testid="live-banner">
          {live.connection === "connecting"
            ? "Connecting to the live stream…"
            : live.connection === "refused"
              ? "The server refused the API token, so the live stream is closed. Give the token above and the page reloads."
              : live.connection === "forbidden"
                ? `The server refused this page's live stream: ${live.refusal ?? "its origin is not allowed."}`
                : `Live connection lost. Reconnecting${retryIn !== null ? ` in ${retryIn}s` : ""} (attempt ${live.attempt}); the charts rebuild from the server's snapshot.`}
          {live.connection === "reconnecting" && (
            <button type="button" onClick={live.retryNow}>
              Retry now
            </button>
          )}
        </div>
      )}
      {finished && (
        <div className="banner banner-info" data-testid="run-ended-banner">
          {ENDED[status] ?? `The run is ${status}.`} <Link to={`/runs/${id}`}>See its details and summary</Link>.
        </div>
      )}
      {action.error && (
        <p className="inline-error" role="alert">
          {action.error}
        </p>
      )}

      <PreloadProgress status={status} preload={live.preload} />
      {live.config?.profile && <ProfileControls runId={id} stages={live.config.profile.stages.length} enabled={status === "running" || status === "paused"} />}
      <StatusLine status={status} latest={latest} reconciliation={live.summary?.reconciliation} reason={live.reason ?? run.data?.failure_reason ?? null} definition={definition !== null} />

      <div className="live-layout">
        <div className="live-charts">
          {live.samples.length === 0 && live.connection === "open" && active && <p className="muted">Waiting for the first sample…</p>}
          {finished && live.samples.length === 0 ? (
            <p className="muted" data-testid="no-samples">
              This run recorded no samples.
            </p>
          ) : (
            <>
              {participantsFirst(live.config) && participantsChart}
              {/* A run that has ended draws only the charts that have data (like its detail page). */}
              {live.config?.capacity && (
                <Suspense fallback={null}>
                  <CapacityLive runId={id} events={live.events} />
                </Suspense>
              )}
              {definition && <OperationsNow operations={Object.keys(definition.operations)} latest={latest} />}
              <RunCharts rows={planned.rows} markers={markers} syncId="live" emptyText={emptyText} off={off} charts={planned.charts} hideEmpty={finished} />
              {!participantsFirst(live.config) && participantsChart}
              <BreakdownCharts samples={live.samples} syncId="live" />
            </>
          )}
        </div>
        <ControlPanel runId={id} config={live.config} events={live.events} editable={status === "running" || status === "paused"} />
      </div>
    </section>
  );
}
