// The shape of a run's load, beside its knobs: a profile (a schedule of stages the engine follows),
// or a capacity search (the engine raises the rate step by step until a stop condition breaks),
// and conditions that stop the run when they hold for a time. The bounds are the server's: its 422
// names the field.
import type { RunConfig } from "@/lib/types";

type Profile = NonNullable<RunConfig["profile"]>;
type Stage = Profile["stages"][number];
type Capacity = NonNullable<RunConfig["capacity"]>;
type Mode = "steady" | "profile" | "capacity";

const NEW_STAGE: Record<Stage["kind"] & string, Stage> = {
  hold: { kind: "hold", rate: 100, duration_s: 60 },
  ramp: { kind: "ramp", from_rate: 100, to_rate: 1000, duration_s: 300 },
  step: { kind: "step", from_rate: null, increment: 100, every_s: 30, to_rate: 1000 },
};
const NEW_PROFILE: Profile = { operation: null, stages: [NEW_STAGE.hold as Stage], ramp_step_s: null, stop_at_end: true };
// the server's defaults, but for the rates and the latency limit, which have none
const NEW_CAPACITY: Capacity = {
  operation: null,
  start_rate: 200,
  step: 200,
  max_rate: 5000,
  min_step_s: 10,
  max_step_s: 60,
  stability_pct: 10,
  percentile: "p99",
  latency_ms: 100,
  errors_pct: 1,
  achieved_pct: 90,
  server_cpu_pct: null,
  bisect: 0,
  back_off_s: 0,
  also: [],
};

function NumberInput({ label, value, onChange, testId, optional }: { label: string; value: number | null | undefined; onChange: (v: number | null) => void; testId: string; optional?: boolean }) {
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      <input
        type="number"
        value={value ?? ""}
        placeholder={optional ? "off" : undefined}
        onChange={(e) => onChange(e.target.value === "" ? (optional ? null : 0) : Number(e.target.value))}
        data-testid={testId}
      />
    </label>
  );
}

function StageRow({ stage, index, onChange, onRemove }: { stage: Stage; index: number; onChange: (s: Stage) => void; onRemove?: () => void }) {
  const num = (key: string, label: string) => (
    <NumberInput label={label} value={(stage as Record<string, unknown>)[key] as number | null | undefined} onChange={(v) => onChange({ ...stage, [key]: v } as Stage)} testId={`stage-${index}-${key}`} optional={key === "from_rate" && stage.kind === "step"} />
  );
  return (
    <div className="knob-grid stage-row" data-testid={`stage-${index}`}>
      <label className="field">
        <span className="field-label">Stage {index + 1}</span>
        <select value={stage.kind} onChange={(e) => onChange(NEW_STAGE[e.target.value as keyof typeof NEW_STAGE] as Stage)} data-testid={`stage-${index}-kind`}>
          <option value="hold">hold a rate</option>
          <option value="ramp">ramp from one rate to another</option>
          <option value="step">step up every N seconds</option>
        </select>
      </label>
      {stage.kind === "hold" && [num("rate", "rate /s"), num("duration_s", "for s")]}
      {stage.kind === "ramp" && [num("from_rate", "from /s"), num("to_rate", "to /s"), num("duration_s", "over s")]}
      {stage.kind === "step" && [num("from_rate", "from /s"), num("increment", "up by /s"), num("every_s", "every s"), num("to_rate", "to /s")]}
      {onRemove && (
        <button type="button" onClick={onRemove} data-testid={`stage-${index}-remove`}>
          Remove
        </button>
      )}
    </div>
  );
}

export function LoadShapeSection({ config, onChange }: { config: RunConfig; onChange: (next: RunConfig) => void }) {
  const mode: Mode = config.capacity ? "capacity" : config.profile ? "profile" : "steady";
  const setMode = (m: Mode) => onChange({ ...config, profile: m === "profile" ? (config.profile ?? NEW_PROFILE) : null, capacity: m === "capacity" ? (config.capacity ?? NEW_CAPACITY) : null });
  const profile = config.profile;
  const capacity = config.capacity;
  const setStages = (stages: Stage[]) => profile && onChange({ ...config, profile: { ...profile, stages } });
  const setCapacity = (key: keyof Capacity, value: unknown) => capacity && onChange({ ...config, capacity: { ...capacity, [key]: value } });
  const operations = config.definition ? Object.keys(config.definition.operations) : [];

  return (
    <details className="knob-section" data-testid="section-load-shape" open={mode !== "steady" || (config.abort_on ?? []).length > 0 ? true : undefined}>
      <summary>
        Load shape <span className="muted small">(profile, capacity search, abort conditions)</span>
      </summary>
      <div className="field" role="radiogroup" aria-label="load shape">
        {(["steady", "profile", "capacity"] as const).map((m) => (
          <label key={m} className="small">
            <input type="radio" name="load-shape" checked={mode === m} onChange={() => setMode(m)} data-testid={`shape-${m}`} />{" "}
            {m === "steady" ? "steady (the knobs' rate)" : m === "profile" ? "a profile of stages" : "a capacity search"}
          </label>
        ))}
      </div>
      {operations.length > 0 && mode !== "steady" && (
        <label className="field">
          <span className="field-label">operation driven</span>
          <select
            value={(mode === "profile" ? profile?.operation : capacity?.operation) ?? ""}
            onChange={(e) => (mode === "profile" && profile ? onChange({ ...config, profile: { ...profile, operation: e.target.value } }) : setCapacity("operation", e.target.value))}
            data-testid="shape-operation"
          >
            <option value="">(choose)</option>
            {operations.map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
        </label>
      )}
      {mode === "profile" && profile && (
        <div data-testid="stages-editor">
          {profile.stages.map((stage, i) => (
            <StageRow
              key={i}
              stage={stage}
              index={i}
              onChange={(s) => setStages(profile.stages.map((old, j) => (j === i ? s : old)))}
              onRemove={profile.stages.length > 1 ? () => setStages(profile.stages.filter((_, j) => j !== i)) : undefined}
            />
          ))}
          <button type="button" onClick={() => setStages([...profile.stages, NEW_STAGE.hold as Stage])} data-testid="stage-add">
            Add a stage
          </button>
          <p className="help">The live page draws the planned rate ahead of the run and can skip, extend or hold a stage.</p>
        </div>
      )}
      {mode === "capacity" && capacity && (
        <div className="knob-grid" data-testid="capacity-editor">
          <NumberInput label="start /s" value={capacity.start_rate} onChange={(v) => setCapacity("start_rate", v)} testId="capacity-start_rate" />
          <NumberInput label="step /s" value={capacity.step} onChange={(v) => setCapacity("step", v)} testId="capacity-step" />
          <NumberInput label="up to /s" value={capacity.max_rate} onChange={(v) => setCapacity("max_rate", v)} testId="capacity-max_rate" />
          <NumberInput label="each step at least s" value={capacity.min_step_s} onChange={(v) => setCapacity("min_step_s", v)} testId="capacity-min_step_s" />
          <NumberInput label="judged anyway after s" value={capacity.max_step_s} onChange={(v) => setCapacity("max_step_s", v)} testId="capacity-max_step_s" />
          <label className="field">
            <span className="field-label">percentile</span>
            <select value={capacity.percentile ?? "p99"} onChange={(e) => setCapacity("percentile", e.target.value)} data-testid="capacity-percentile">
              <option>p50</option>
              <option>p95</option>
              <option>p99</option>
            </select>
          </label>
          <NumberInput label="breaks above ms" value={capacity.latency_ms} onChange={(v) => setCapacity("latency_ms", v)} testId="capacity-latency_ms" optional />
          <NumberInput label="errors above %" value={capacity.errors_pct} onChange={(v) => setCapacity("errors_pct", v)} testId="capacity-errors_pct" optional />
          <NumberInput label="achieved below %" value={capacity.achieved_pct} onChange={(v) => setCapacity("achieved_pct", v)} testId="capacity-achieved_pct" optional />
          <NumberInput label="server CPU above %" value={capacity.server_cpu_pct} onChange={(v) => setCapacity("server_cpu_pct", v)} testId="capacity-server_cpu_pct" optional />
          <NumberInput label="bisection steps" value={capacity.bisect} onChange={(v) => setCapacity("bisect", v ?? 0)} testId="capacity-bisect" />
          <NumberInput label="back off s" value={capacity.back_off_s} onChange={(v) => setCapacity("back_off_s", v ?? 0)} testId="capacity-back_off_s" />
        </div>
      )}
      <label className="field">
        <span className="field-label">Abort on (one a line)</span>
        <textarea
          rows={2}
          value={(config.abort_on ?? []).join("\n")}
          placeholder="updater.p99_ms>500 for 30s"
          onChange={(e) => onChange({ ...config, abort_on: e.target.value.split("\n").filter((l) => l.trim() !== "") })}
          data-testid="abort-on"
        />
        <span className="help">The run stops itself, the reason on its timeline, when a condition holds for the time given.</span>
      </label>
    </details>
  );
}
