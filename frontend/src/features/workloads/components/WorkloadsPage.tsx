// Workloads: the built-in and saved definitions, and an editor to write one's own: Validate (problems placed on
// their lines), Save (a new version in the run store), Dry run (each operation once, what came back) and Start (a run of the definition,
// then its live page). A lazy route: the editor's code loads with this page only.
import { useState } from "react";
import { useNavigate } from "react-router-dom";
import { parse } from "yaml";
import { ErrorState, Loading } from "@/components/States";
import { ApiError, type DefinitionProblem } from "@/lib/api/client";
import { createRun } from "@/lib/api/runs";
import { DEFAULT_CONFIG, KNOB_BY_PATH } from "@/lib/knobs";
import { getCatalog, getSavedWorkload, getWorkload, getWorkloadSchema, listWorkloads, saveWorkload, type Validation, validateWorkload } from "@/lib/api/workloads";
import type { DryRunResult, DryRunStep, WorkloadSummary } from "@/lib/types";
import { useAsync } from "@/lib/useAsync";
import type { SchemaNode } from "../api/schemaCompletion";
import { DefinitionEditor } from "./DefinitionEditor";

/** The run config's client.interface (its options and help from the backend's schema). */
const INTERFACE = KNOB_BY_PATH.get("client.interface");

/** Where a new definition starts: one table, one knob, one operation. */
export const STARTER = `name: my_workload
description: One table, written at a rate you set live.
ddl:
  - CREATE TABLE Things (Id INT64 NOT NULL, Name STRING(64), Updated TIMESTAMP OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (Id)
knobs:
  write_rate: {default: 20, min: 1, max: 1000, unit: tx/s, help: writes per second}
values:
  id: {uniform: {min: 1, max: 1000}}
operations:
  write:
    rate: $write_rate
    transaction: single_use
    steps:
      - insert_or_update: {table: Things, columns: {Id: $id, Name: {string: {length: 8}}, Updated: commit_timestamp}}
`;

type Busy = "validate" | "dry-run" | "save" | "start" | null;

/** The saved definition open in the editor: its name, the version shown, how many there are, and
 * its text (while the editor holds it unchanged, Start runs that version by name, and the run
 * records it). */
interface OpenSaved {
  name: string;
  version: number;
  versions: number;
  source: string;
}

function WorkloadItem({ w, onOpen }: { w: WorkloadSummary; onOpen: () => void }) {
  return (
    <li data-testid={`workload-${w.name}`}>
      <button type="button" className="link-button" onClick={onOpen}>
        {w.name}
      </button>
      {w.version != null && <span className="muted small"> v{w.version}</span>}
      <p className="small">{w.description}</p>
      <p className="muted small">
        {w.operations.length} operation{w.operations.length === 1 ? "" : "s"}: {w.operations.join(", ")}
        {Object.keys(w.knobs).length > 0 && ` · knobs: ${Object.keys(w.knobs).join(", ")}`}
      </p>
    </li>
  );
}

function cell(value: unknown): string {
  return value === null ? "NULL" : typeof value === "object" ? JSON.stringify(value) : String(value);
}

function DryRunStepView({ step }: { step: DryRunStep }) {
  return (
    <div className="dry-run-step">
      <p className="small">
        step {step.step + 1}, {step.kind}: <code>{step.what}</code> <span className="muted">· {step.row_count} row{step.row_count === 1 ? "" : "s"}</span>
      </p>
      {step.columns.length > 0 && step.rows.length > 0 && (
        <div className="table-scroll">
          <table className="data-table small">
            <thead>
              <tr>
                {step.columns.map((c) => (
                  <th key={c}>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {step.rows.map((row, i) => (
                <tr key={i}>
                  {row.map((value, j) => (
                    <td key={j}>{cell(value)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function DryRun({ results }: { results: readonly DryRunResult[] }) {
  return (
    <div className="dry-run" data-testid="dry-run">
      <h3>Dry run</h3>
      {results.map((r) => (
        <div key={r.operation} className="dry-run-op" data-testid={`dry-run-${r.operation}`} data-ok={r.ok}>
          <p>
            <strong>{r.operation}</strong> <span className="muted small">{r.transaction}</span> <span className={r.ok ? "good" : "bad"}>{r.ok ? "ran" : "failed"}</span>
            {r.rolled_back && <span className="muted small"> · rolled back</span>}
          </p>
          {r.error && <p className="inline-error">{r.error}</p>}
          {r.steps.map((step) => (
            <DryRunStepView key={step.step} step={step} />
          ))}
        </div>
      ))}
    </div>
  );
}

function Problems({ problems }: { problems: readonly DefinitionProblem[] }) {
  return (
    <ul className="problems" data-testid="problems">
      {problems.map((p, i) => (
        <li key={i} data-line={p.line ?? ""}>
          {p.line ? `line ${p.line}${p.column ? `, column ${p.column}` : ""}: ` : ""}
          {p.path ? <code>{p.path}</code> : null}
          {p.path ? " " : ""}
          {p.message}
          {p.statement && <pre className="small">{p.statement}</pre>}
        </li>
      ))}
    </ul>
  );
}

export function WorkloadsPage() {
  const navigate = useNavigate();
  const workloads = useAsync((signal) => listWorkloads(signal), []);
  const schema = useAsync((signal) => getWorkloadSchema(signal) as Promise<SchemaNode>, []);
  // The runs' database on the server's target, for completing its table and column names; without
  // it (unreachable, not created yet) the editor completes the definition's own tables alone.
  const catalog = useAsync((signal) => getCatalog(undefined, signal), []);
  const [text, setText] = useState(STARTER);
  const [problems, setProblems] = useState<readonly DefinitionProblem[]>([]);
  const [result, setResult] = useState<Validation | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [duration, setDuration] = useState("120");
  const [iface, setIface] = useState<string>(DEFAULT_CONFIG.client?.interface ?? "googlesql");
  const [saved, setSaved] = useState<OpenSaved | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const edit = (next: string) => {
    setText(next);
    setResult(null);
    setNotice(null);
  };

  const open = async (name: string, origin: "builtin" | "saved", version?: number) => {
    setMessage(null);
    try {
      if (origin === "saved") {
        const found = await getSavedWorkload(name, version);
        setText(found.source);
        setSaved({ name, version: found.version, versions: found.versions, source: found.source });
      } else {
        setText((await getWorkload(name)).source);
        setSaved(null);
      }
      setProblems([]);
      setResult(null);
    } catch (err) {
      setMessage(err instanceof Error ? err.message : String(err));
    }
  };

  const save = async () => {
    setBusy("save");
    setMessage(null);
    setNotice(null);
    try {
      const answer = await saveWorkload(text);
      setProblems([]);
      setSaved({ name: answer.name, version: answer.version, versions: answer.versions, source: text });
      setNotice(answer.created ? `Saved ${answer.name} as version ${answer.version}.` : `${answer.name} version ${answer.version} is this text already: nothing new saved.`);
      workloads.reload();
    } catch (err) {
      setProblems(err instanceof ApiError ? err.problems : []);
      setMessage(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(null);
    }
  };

  /** Ask the server; problems go on their lines, and the answer (or null) comes back. */
  const check = async (what: Busy, dryRun: boolean): Promise<Validation | null> => {
    setBusy(what);
    setMessage(null);
    setResult(null);
    try {
      const answer = await validateWorkload(text, dryRun);
      setProblems([]);
      setResult(answer);
      return answer;
    } catch (err) {
      setProblems(err instanceof ApiError ? err.problems : []);
      setMessage(err instanceof ApiError && err.problems.length ? `${err.problems.length} problem${err.problems.length > 1 ? "s" : ""}: see the marked lines.` : err instanceof Error ? err.message : String(err));
      return null;
    } finally {
      setBusy(null);
    }
  };

  const start = async () => {
    if (!(await check("start", false))) return;
    setBusy("start");
    try {
      const definition = parse(text) as { name?: string };
      const seconds = Number(duration);
      const shared = { client: { interface: iface }, ...(duration.trim() && seconds > 0 ? { duration_s: seconds } : {}) };
      const asSaved = saved !== null && saved.source === text;
      const run = await createRun(
        asSaved
          ? { name: definition.name ?? null, definition_name: saved.name, definition_version: saved.version, overrides: shared }
          : { name: definition.name ?? null, overrides: { workload: "definition", definition, ...shared } },
      );
      navigate(`/runs/${run.id}/live`);
    } catch (err) {
      setMessage(err instanceof Error ? err.message : String(err));
      setBusy(null);
    }
  };

  return (
    <section className="page workloads-page" data-testid="workloads-page">
      <div className="page-head">
        <h1>Workloads</h1>
      </div>
      <div className="workloads-layout">
        <aside className="workload-list" data-testid="workload-list">
          <h2>Built-in definitions</h2>
          {workloads.error ? (
            <ErrorState error={workloads.error} onRetry={workloads.reload} title="Could not load the definitions" />
          ) : !workloads.data ? (
            <Loading what="Loading the definitions" />
          ) : (
            <>
              <ul>
                {workloads.data.data
                  .filter((w) => w.origin !== "saved")
                  .map((w) => (
                    <WorkloadItem key={w.name} w={w} onOpen={() => void open(w.name, "builtin")} />
                  ))}
              </ul>
              <h2>Saved definitions</h2>
              {workloads.data.data.some((w) => w.origin === "saved") ? (
                <ul data-testid="saved-workloads">
                  {workloads.data.data
                    .filter((w) => w.origin === "saved")
                    .map((w) => (
                      <WorkloadItem key={w.name} w={w} onOpen={() => void open(w.name, "saved")} />
                    ))}
                </ul>
              ) : (
                <p className="muted small">None yet: Save in the editor keeps a definition here, each save a new version.</p>
              )}
            </>
          )}
          <button
            type="button"
            onClick={() => {
              edit(STARTER);
              setSaved(null);
            }}
            data-testid="new-definition"
          >
            New definition
          </button>
          <p className="muted small">The format: workloads/README.md. Ctrl-Space completes a key from the definition's schema, and in a value a table or column of the target's database or of the definition's DDL.</p>
        </aside>
        <div className="workload-editor">
          <div className="editor-actions">
            <button type="button" onClick={() => void check("validate", false)} disabled={busy !== null} data-testid="validate">
              {busy === "validate" ? "Validating…" : "Validate"}
            </button>
            <button type="button" onClick={() => void save()} disabled={busy !== null} data-testid="save-definition">
              {busy === "save" ? "Saving…" : "Save"}
            </button>
            {saved && (
              <label className="inline-field">
                {saved.name}{" "}
                <select value={saved.version} onChange={(e) => void open(saved.name, "saved", Number(e.target.value))} aria-label="Saved version" data-testid="saved-version">
                  {Array.from({ length: saved.versions }, (_, i) => saved.versions - i).map((v) => (
                    <option key={v} value={v}>
                      version {v}
                      {v === saved.versions ? " (latest)" : ""}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <button type="button" onClick={() => void check("dry-run", true)} disabled={busy !== null} data-testid="dry-run-button">
              {busy === "dry-run" ? "Running each operation…" : "Dry run"}
            </button>
            <label className="inline-field">
              Duration{" "}
              <input type="number" min="1" className="num-input" value={duration} onChange={(e) => setDuration(e.target.value)} aria-label="Duration in seconds (empty: until stopped)" data-testid="duration" />{" "}
              s
            </label>
            <label className="inline-field" title={INTERFACE?.help}>
              Interface{" "}
              <select value={iface} onChange={(e) => setIface(e.target.value)} aria-label="Client interface" data-testid="interface">
                {(INTERFACE?.options ?? ["googlesql"]).map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" className="primary" onClick={() => void start()} disabled={busy !== null} data-testid="start-definition">
              {busy === "start" ? "Starting…" : "Start"}
            </button>
          </div>
          {schema.data || schema.error ? <DefinitionEditor value={text} onChange={edit} problems={problems} schema={schema.data ?? null} tables={catalog.data?.tables} /> : <Loading what="Loading the definition schema" />}
          {message && (
            <p className="inline-error" role="alert" data-testid="editor-message">
              {message}
            </p>
          )}
          {notice && (
            <p className="good" role="status" data-testid="saved-notice">
              {notice}
            </p>
          )}
          {problems.length > 0 && <Problems problems={problems} />}
          {result && (
            <p className="good" role="status" data-testid="valid">
              Valid: {result.name}{result.scratch ? " (its statements analysed on a scratch database)" : ""}.
              {result.creates.length > 0 && ` Starting it creates ${result.creates.join(", ")}.`}
            </p>
          )}
          {result?.dry_run && <DryRun results={result.dry_run} />}
        </div>
      </div>
    </section>
  );
}
