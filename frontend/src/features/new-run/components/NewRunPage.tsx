// New run: pick a preset, the target and the duration; expand sections for every knob. A value out
// of its field's bounds is explained next to it as it is typed; a rule that ties fields together is
// the server's, and its 422 is placed on the field it names.
import { type FormEvent, lazy, Suspense, useEffect, useMemo, useState } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { ErrorState, Loading } from "@/components/States";
import { ApiError } from "@/lib/api/client";
import { fetchPresets } from "@/lib/api/presets";
import { createRun } from "@/lib/api/runs";
import { DEFAULT_CONFIG, getPath, type Knob, KNOB_BY_PATH, KNOBS, SECTION_TITLES, sectionUsed, setPath, validateConfig } from "@/lib/knobs";
import type { RunConfig } from "@/lib/types";
import { useAsync } from "@/lib/useAsync";
import { definitionKnobs, definitionOverrides, loadShapeOverrides, overridesFor, withDefinitionValues, withPreset } from "../api/presets";
import { serverFieldErrors } from "@/lib/serverErrors";
import { KnobField } from "./KnobField";

// A lazy module: the first page's code does not carry the stages and search editors.
const LoadShapeSection = lazy(() => import("./LoadShapeSection").then((m) => ({ default: m.LoadShapeSection })));

/** Fields shown at the top, outside the sections. */
const TOP_FIELDS = ["name", "workload", "target.kind", "duration_s"];
const SECTIONS = (Object.keys(SECTION_TITLES) as Knob["section"][]).map((section) => ({
  section,
  knobs: KNOBS.filter((k) => k.section === section && !TOP_FIELDS.includes(k.path)),
}));

/** Workload "definition" runs a workload definition, which this form cannot write: the Workloads page does. */
function definitionMissing(config: RunConfig): Record<string, string> {
  if (config.workload !== "definition" || config.definition) return {};
  return { workload: "A definition run starts from the Workloads page, where you write or pick one, or from a preset that carries one (shop-googlesql)." };
}

export function NewRunPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const presets = useAsync((signal) => fetchPresets(signal), []);
  const [presetName, setPresetName] = useState<string>(params.get("preset") ?? "");
  const [config, setConfig] = useState<RunConfig>(DEFAULT_CONFIG);
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [openSections, setOpenSections] = useState<Set<string>>(new Set());

  // Choosing a preset loads its values (keeping the chosen target and name).
  useEffect(() => {
    if (!presets.data) return;
    const preset = presets.data.find((p) => p.name === presetName);
    setConfig((current) => ({ ...withPreset(preset), name: current.name, target: current.target, duration_s: preset?.config.duration_s ?? current.duration_s }));
  }, [presetName, presets.data]);

  // a definition run's own knobs (the presets of the report workloads carry one since issue 22)
  const defKnobs = useMemo(() => definitionKnobs(config), [config]);
  const shown = useMemo(() => withDefinitionValues(config), [config]);
  const errors = useMemo(
    () => ({ ...validateConfig(config), ...validateConfig(shown, defKnobs), ...definitionMissing(config), ...serverErrors }),
    [config, shown, defKnobs, serverErrors],
  );
  const invalid = Object.keys(errors).length > 0;

  const set = (path: string, value: unknown) => {
    setConfig((c) => setPath(c, path, value));
    setTouched((t) => new Set([...t, path]));
    // A rule tying fields together is the server's: any change may have fixed it, so its answer
    // stands only until the next change; Start asks again.
    setServerErrors({});
  };

  const visibleError = (path: string) => (submitted || touched.has(path) ? errors[path] : undefined);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (invalid) {
      setFormError("Fix the fields marked in red first.");
      return;
    }
    setSending(true);
    setFormError(null);
    try {
      const name = config.name?.trim() || undefined;
      const preset = presets.data?.find((p) => p.name === presetName);
      const request = preset
        ? {
            preset: preset.name,
            overrides: { ...overridesFor(withPreset(preset), config), ...definitionOverrides(withPreset(preset), config), ...loadShapeOverrides(withPreset(preset), config) },
            name,
          }
        : { config: { ...config, preset: null, name: name ?? null }, name };
      const run = await createRun(request);
      navigate(`/runs/${run.id}/live`);
    } catch (err) {
      if (err instanceof ApiError) {
        const fields = serverFieldErrors(err, (p) => KNOB_BY_PATH.has(p) || defKnobs.some((k) => k.path === p));
        setServerErrors(fields);
        setFormError(err.message);
      } else {
        setFormError(err instanceof Error ? err.message : String(err));
      }
    } finally {
      setSending(false);
    }
  };

  const field = (path: string) => {
    const knob = KNOB_BY_PATH.get(path);
    if (!knob) return null;
    return <KnobField key={path} knob={knob} value={getPath(config, path)} error={visibleError(path)} onChange={(v) => set(path, v)} />;
  };

  const preset = presets.data?.find((p) => p.name === presetName);
  const errorsIn = (knobs: readonly Knob[]) => knobs.filter((k) => visibleError(k.path)).length;

  return (
    <section className="page" data-testid="new-run-page">
      <div className="page-head">
        <h1>New run</h1>
      </div>
      <form className="new-run-form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="preset" className="field-label">
            Preset
          </label>
          {presets.error ? (
            <ErrorState error={presets.error} onRetry={presets.reload} title="Could not load the presets" />
          ) : !presets.data ? (
            <Loading what="Loading presets" />
          ) : (
            <select id="preset" value={presetName} onChange={(e) => setPresetName(e.target.value)} data-testid="preset-select">
              <option value="">(none: the defaults)</option>
              {presets.data.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                </option>
              ))}
            </select>
          )}
          <p className="help">{preset?.description ?? "A starting point; every knob below can still be changed."}</p>
        </div>
        <div className="top-fields">{TOP_FIELDS.map(field)}</div>

        {SECTIONS.filter(({ section }) => sectionUsed(section, config.workload)).map(({ section, knobs }) => {
          const count = errorsIn(knobs);
          return (
            <details
              key={section}
              className="knob-section"
              open={count > 0 || openSections.has(section)}
              onToggle={(e) => {
                const open = (e.currentTarget as HTMLDetailsElement).open;
                setOpenSections((s) => {
                  if (open === s.has(section)) return s;
                  const next = new Set(s);
                  if (open) next.add(section);
                  else next.delete(section);
                  return next;
                });
              }}
              data-testid={`section-${section}`}
            >
              <summary>
                {SECTION_TITLES[section]} <span className="muted small">({knobs.length} settings)</span>
                {count > 0 && <span className="bad small"> · {count} to fix</span>}
              </summary>
              <div className="knob-grid">{knobs.map((k) => field(k.path))}</div>
            </details>
          );
        })}

        {defKnobs.length > 0 && (
          <details className="knob-section" open data-testid="section-knobs">
            <summary>
              Workload knobs <span className="muted small">({defKnobs.length} settings of {String((config.definition as { name?: string } | null)?.name ?? "the definition")})</span>
              {errorsIn(defKnobs) > 0 && <span className="bad small"> · {errorsIn(defKnobs)} to fix</span>}
            </summary>
            <div className="knob-grid">
              {defKnobs.map((k) => (
                <KnobField key={k.path} knob={k} value={getPath(shown, k.path)} error={visibleError(k.path)} onChange={(v) => set(k.path, v)} />
              ))}
            </div>
          </details>
        )}

        <Suspense fallback={null}>
          <LoadShapeSection
            config={config}
            onChange={(next) => {
              setConfig(next);
              setServerErrors({});
            }}
          />
        </Suspense>

        <div className="form-actions">
          <button type="submit" className="primary" disabled={sending || (submitted && invalid)} data-testid="start-run">
            {sending ? "Starting…" : "Start run"}
          </button>
          {formError && (
            <p className="inline-error" role="alert" data-testid="form-error">
              {formError}
            </p>
          )}
        </div>
      </form>
    </section>
  );
}
