// The live control panel: sliders with numeric inputs for the live knobs. Apply sends the patch;
// the change shows as confirmed once the run's timeline (the websocket) records it. A definition
// run's controls are generated from its definition: its knobs and each operation's pacing.
import { type FormEvent, useEffect, useMemo, useRef, useState } from "react";
import { ApiError } from "@/lib/api/client";
import { patchConfig } from "@/lib/api/runs";
import { definitionControls, definitionValues } from "@/lib/definition";
import { diffPatch, flatten, formatValue, getPath, type Knob, KNOBS, sectionUsed, setPath, validateConfig } from "@/lib/knobs";
import { serverFieldErrors } from "@/lib/serverErrors";
import type { RunConfig, RunEvent, WorkloadDefinition } from "@/lib/types";
import { useApplyConfirmation } from "../hooks/useApplyConfirmation";
import { useFitToWindow } from "../hooks/useFitToWindow";

const CONTROL_KNOBS = KNOBS.filter((k) => k.control);

function Help({ knob }: { knob: Knob }) {
  return (
    <p className="help">
      {knob.help}
      {!knob.live && <span className="muted" data-testid={`fixed-${knob.path}`}> (fixed once the run starts)</span>}
    </p>
  );
}

/** The controls of a run: generated from its definition, or the config's live knobs of its workload. */
function controlsFor(config: RunConfig | null): { knobs: readonly Knob[]; base: RunConfig | null } {
  const definition = config?.definition as WorkloadDefinition | null | undefined;
  if (!config || config.workload !== "definition" || !definition) return { knobs: CONTROL_KNOBS.filter((k) => !config || sectionUsed(k.section, config.workload)), base: config };
  return { knobs: definitionControls(definition), base: { ...config, ...definitionValues(config) } as RunConfig };
}

function KnobControl({ knob, value, error, disabled, onChange }: { knob: Knob; value: unknown; error?: string; disabled: boolean; onChange: (v: unknown) => void }) {
  const id = `ctl-${knob.path}`;
  if (knob.kind === "bool") {
    return (
      <div className="control">
        <label htmlFor={id} className="control-label">
          <input id={id} type="checkbox" checked={value === true} disabled={disabled} onChange={(e) => onChange(e.target.checked)} data-testid={`control-${knob.path}`} />{" "}
          {knob.label}
        </label>
        <Help knob={knob} />
      </div>
    );
  }
  if (knob.kind === "enum") {
    return (
      <div className="control">
        <label htmlFor={id} className="control-label">
          {knob.label}
        </label>
        <select id={id} value={String(value ?? "")} disabled={disabled} onChange={(e) => onChange(e.target.value)} data-testid={`control-${knob.path}`}>
          {knob.options?.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
        {error && <p className="field-error">{error}</p>}
        <Help knob={knob} />
      </div>
    );
  }
  const numeric = typeof value === "number" ? value : value === "" || value == null ? "" : Number(value);
  const slider = knob.slider ?? { min: knob.min ?? 0, max: knob.max ?? 100, step: 1 };
  const parse = (text: string) => (text === "" ? "" : Number(text));
  return (
    <div className="control">
      <label htmlFor={id} className="control-label">
        {knob.label} {knob.unit && <span className="muted">({knob.unit})</span>}
      </label>
      <div className="slider-row">
        <input
          type="range"
          aria-label={`${knob.label} slider`}
          min={slider.min}
          max={slider.max}
          step={slider.step}
          value={numeric === "" ? slider.min : Math.min(slider.max, Math.max(slider.min, numeric))}
          disabled={disabled}
          onChange={(e) => onChange(Number(e.target.value))}
          data-testid={`slider-${knob.path}`}
        />
        <input
          id={id}
          type="number"
          className="num-input"
          step="any"
          value={numeric}
          disabled={disabled}
          aria-invalid={!!error}
          onChange={(e) => onChange(parse(e.target.value))}
          data-testid={`control-${knob.path}`}
        />
      </div>
      {error && (
        <p className="field-error" data-testid={`error-${knob.path}`}>
          {error}
        </p>
      )}
      <Help knob={knob} />
    </div>
  );
}

export interface ControlPanelProps {
  runId: string;
  config: RunConfig | null;
  events: readonly RunEvent[];
  /** Knobs can be changed only while the run is running or paused. */
  editable: boolean;
}

export function ControlPanel({ runId, config: served, events, editable }: ControlPanelProps) {
  const { knobs, base: config } = useMemo(() => controlsFor(served), [served]);
  const [draft, setDraft] = useState<RunConfig | null>(config);
  const [dirty, setDirty] = useState(false);
  const [sendError, setSendError] = useState<string | null>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [sending, setSending] = useState(false);
  // On a narrow screen the panel comes before the charts, folded to its title until opened; on a
  // wide one it sits beside them and is always open (styles.css ignores this there).
  const [open, setOpen] = useState(false);
  const panel = useRef<HTMLElement>(null);
  useFitToWindow(panel, config !== null && draft !== null);
  const confirmation = useApplyConfirmation(events, config);

  // Follow the server's config while the user is not editing.
  useEffect(() => {
    if (!dirty) setDraft(config);
  }, [config, dirty]);

  const errors = useMemo(() => ({ ...(draft ? validateConfig(draft, knobs) : {}), ...serverErrors }), [draft, serverErrors, knobs]);
  const patch = useMemo(() => (config && draft ? diffPatch(config, draft, knobs) : {}), [config, draft, knobs]);
  const changes = flatten(patch);
  const hasChanges = Object.keys(changes).length > 0;
  const valid = Object.keys(errors).length === 0;

  if (!config || !draft) return <aside className="control-panel muted">Waiting for the run's config…</aside>;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!hasChanges || !valid) return;
    setSending(true);
    setSendError(null);
    try {
      confirmation.expect(changes);
      await patchConfig(runId, patch);
      setDirty(false);
    } catch (err) {
      confirmation.cancel();
      if (err instanceof ApiError) setServerErrors(serverFieldErrors(err, (p) => knobs.some((k) => k.path === p)));
      setSendError(err instanceof Error ? err.message : String(err));
    } finally {
      setSending(false);
    }
  };

  const set = (knob: Knob, value: unknown) => {
    setDirty(true);
    setServerErrors({});
    setDraft((d) => (d ? setPath(d, knob.path, value) : d));
  };

  return (
    <aside ref={panel} className={`control-panel${open ? " open" : ""}`} data-testid="control-panel" data-open={open}>
      <form onSubmit={submit} noValidate className="control-form">
        <div className="control-head">
          <h2>Live controls</h2>
          <button type="button" className="panel-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="toggle-controls">
            {open ? "Hide" : "Show"}
          </button>
        </div>
        {/* The knobs scroll in their own box; Apply and what it says never scroll out of the panel. */}
        <div className="control-body">
          <div className="control-knobs" data-testid="control-knobs">
            {!editable && <p className="muted small">The run is not going: knobs are read-only.</p>}
            {knobs.map((knob) => (
              <KnobControl key={knob.path} knob={knob} value={getPath(draft, knob.path)} error={errors[knob.path]} disabled={!editable || sending || !knob.live} onChange={(v) => set(knob, v)} />
            ))}
          </div>
          <div className="control-footer" data-testid="control-footer">
            <div className="control-actions">
              <button type="submit" className="primary" disabled={!editable || !hasChanges || !valid || sending} data-testid="apply-config">
                {sending ? "Applying…" : hasChanges ? `Apply ${Object.keys(changes).length} change${Object.keys(changes).length > 1 ? "s" : ""}` : "Apply"}
              </button>
              <button
                type="button"
                disabled={!dirty}
                onClick={() => {
                  setDirty(false);
                  setDraft(config);
                }}
              >
                Revert
              </button>
            </div>
            {hasChanges && (
              <p className="small muted" data-testid="pending-changes">
                {Object.entries(changes)
                  .map(([k, v]) => `${k.split(".").pop()}: ${formatValue(getPath(config, k))} → ${formatValue(v)}`)
                  .join("; ")}
              </p>
            )}
            {sendError && (
              <p className="field-error" role="alert" data-testid="apply-error">
                {sendError}
              </p>
            )}
            {confirmation.state !== "idle" && (
              <p className={`apply-status apply-${confirmation.state}`} data-testid="apply-status" data-state={confirmation.state}>
                {confirmation.state === "pending" ? "Sent; waiting for the run to confirm…" : `Confirmed: ${confirmation.label}`}
              </p>
            )}
          </div>
        </div>
      </form>
    </aside>
  );
}
