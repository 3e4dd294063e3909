// The Experiments page: each seed report's experiment, its variants run back to back on one
// database from here, their progress shown as they go, and their comparison opened at the end.
import { useEffect, useRef, useState } from "react";
import { Link, useNavigate } from "react-router-dom";
import { Empty, ErrorState, Loading } from "@/components/States";
import { StatusBadge } from "@/components/StatusBadge";
import { type Experiment, listExperiments } from "@/lib/api/experiments";
import { createRun, getRun } from "@/lib/api/runs";
import { formatDuration } from "@/lib/format";
import { useAsync } from "@/lib/useAsync";
import { compareUrl, runExperiment, type VariantProgress } from "../api/runExperiment";

export function ExperimentsPage() {
  const experiments = useAsync((signal) => listExperiments(signal), []);
  return (
    <section className="page" data-testid="experiments-page">
      <div className="page-head">
        <h1>Experiments</h1>
      </div>
      <p className="muted">
        Each experiment runs a seed report&apos;s variants back to back on one database (the first fills the table, the others find it full), then opens their
        comparison, led by the figures the report measured.
      </p>
      {experiments.loading && !experiments.data ? <Loading what="Loading the experiments" /> : null}
      {experiments.error ? <ErrorState error={experiments.error} onRetry={experiments.reload} /> : null}
      {experiments.data?.length === 0 ? <Empty>This server knows no experiment.</Empty> : null}
      {experiments.data?.map((e) => <ExperimentCard key={e.name} experiment={e} />)}
    </section>
  );
}

function ExperimentCard({ experiment }: { experiment: Experiment }) {
  const navigate = useNavigate();
  const [durationS, setDurationS] = useState(experiment.duration_s);
  const [preloadRows, setPreloadRows] = useState(experiment.preload_rows);
  const [progress, setProgress] = useState<VariantProgress[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [going, setGoing] = useState(false);
  const left = useRef(false);
  useEffect(() => () => void (left.current = true), []);

  const sleep = (ms: number) =>
    new Promise<void>((resolve, reject) => setTimeout(() => (left.current ? reject(new Error("the page was left")) : resolve()), ms));

  async function start() {
    setGoing(true);
    setError(null);
    try {
      const ids = await runExperiment(experiment, { durationS, preloadRows }, { createRun, getRun, sleep }, setProgress);
      if (!left.current) navigate(compareUrl(ids));
    } catch (err) {
      if (!left.current) setError(err instanceof Error ? err.message : String(err));
    } finally {
      if (!left.current) setGoing(false);
    }
  }

  const id = `exp-${experiment.name}`;
  return (
    <article className="card experiment" data-testid={id}>
      <h2>{experiment.name}</h2>
      <p>{experiment.description}</p>
      <p className="muted small" data-testid={`${id}-report`}>
        {experiment.report}
      </p>
      <p className="small">
        Variants, in order: {experiment.variants.map((v) => v.preset).join(" → ")}. Led by: {experiment.figures.map((f) => f.label).join(", ")}.
      </p>
      <form
        className="experiment-form"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <label className="field">
          <span className="field-label">Length of each variant (s)</span>
          <input type="number" min={5} step={1} value={durationS} disabled={going} onChange={(e) => setDurationS(Number(e.target.value))} data-testid={`${id}-duration`} />
        </label>
        <label className="field">
          <span className="field-label">Rows in the table</span>
          <input type="number" min={0} step={1000} value={preloadRows} disabled={going} onChange={(e) => setPreloadRows(Number(e.target.value))} data-testid={`${id}-rows`} />
        </label>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={going || !(durationS >= 5) || !(preloadRows >= 0)} data-testid={`${id}-run`}>
            {going ? "Running…" : `Run ${experiment.variants.length} variants`}
          </button>
          <span className="muted small">
            about {formatDuration(durationS * experiment.variants.length)} of load, plus the preload
          </span>
        </div>
      </form>
      {error ? (
        <div className="banner banner-error" role="alert" data-testid={`${id}-error`}>
          {error}
        </div>
      ) : null}
      {progress ? <Progress progress={progress} durationS={durationS} testId={`${id}-progress`} /> : null}
    </article>
  );
}

function Progress({ progress, durationS, testId }: { progress: VariantProgress[]; durationS: number; testId: string }) {
  return (
    <ol className="experiment-progress" data-testid={testId}>
      {progress.map((p) => (
        <li key={p.preset} data-status={p.run?.status ?? "waiting"}>
          <span className="experiment-variant">{p.preset}</span> {p.run ? <StatusBadge status={p.run.status} /> : <span className="muted">waiting</span>}{" "}
          {p.run?.status === "running" ? (
            <span className="muted small">
              {formatDuration(p.run.duration_s ?? 0)} of {formatDuration(durationS)}
            </span>
          ) : null}{" "}
          {p.run ? <Link to={`/runs/${p.run.id}/live`}>live page</Link> : null}
        </li>
      ))}
    </ol>
  );
}
