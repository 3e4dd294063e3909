// One knob of the run config as a form field, with its unit, one line of help and its error.
import type { Knob } from "@/lib/knobs";

export interface KnobFieldProps {
  knob: Knob;
  value: unknown;
  error?: string;
  onChange: (value: unknown) => void;
}

export function KnobField({ knob, value, error, onChange }: KnobFieldProps) {
  const id = `field-${knob.path}`;
  const errorId = `${id}-error`;
  const common = {
    id,
    "aria-invalid": !!error,
    "aria-describedby": error ? errorId : undefined,
    "data-testid": id,
  };
  let input;
  switch (knob.kind) {
    case "bool":
      input = <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
      break;
    case "enum":
      input = (
        <select {...common} value={String(value ?? "")} onChange={(e) => onChange(e.target.value)}>
          {knob.options?.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    case "text":
      input = <input type="text" {...common} value={value == null ? "" : String(value)} onChange={(e) => onChange(e.target.value === "" && knob.optional ? null : e.target.value)} />;
      break;
    default:
      input = (
        <input
          type="number"
          step="any"
          inputMode="decimal"
          {...common}
          value={value == null ? "" : String(value)}
          onChange={(e) => onChange(e.target.value === "" ? (knob.optional ? null : "") : Number(e.target.value))}
        />
      );
  }
  const range =
    knob.kind === "int" || knob.kind === "float"
      ? ` Range ${knob.minExclusive ? ">" : ""}${knob.min ?? "-∞"} to ${knob.max?.toLocaleString("en-US") ?? "∞"}.`
      : "";
  return (
    <div className={`field${error ? " has-error" : ""}${knob.kind === "bool" ? " field-bool" : ""}`}>
      <label htmlFor={id} className="field-label">
        {knob.label}
        {knob.unit && <span className="muted"> ({knob.unit})</span>}
        {knob.live && <span className="tag" title="can be changed while the run is going">live</span>}
      </label>
      {input}
      {error && (
        <p className="field-error" id={errorId} data-testid={`error-${knob.path}`}>
          {error}
        </p>
      )}
      <p className="help">
        {knob.help}
        {range}
      </p>
    </div>
  );
}
