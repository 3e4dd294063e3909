// What the UI generates from a run's workload definition: a control per knob (its bounds, unit,
// help and live flag are the definition's), a pacing control per operation whose rate or
// concurrency is not a knob already, and charts per operation from its op.<op> metrics (and its
// watch's: notification latency, lag and polls, from the watcher.* metrics).
import { type Knob, pacingKnob } from "./knobs";
import { type ChartSpec, errorsPerSecond, gauge, latency, RUN_CHARTS } from "./series";
import { Gauge, OpMetric, opMetric } from "./api/names.gen";
import type { DefinitionKnob, DefinitionOperation, RunConfig, Sample, WorkloadDefinition } from "./types";

/** A definition run's controls: the knobs first, then each operation's pacing. */
export function definitionControls(definition: WorkloadDefinition): Knob[] {
  const knobs = Object.entries(definition.knobs ?? {}).map(([name, k]) => definitionKnob(name, k));
  const pacing = Object.entries(definition.operations).flatMap(([op, o]) => {
    const knobbed = (v: unknown) => typeof v === "string" && v.startsWith("$");
    if (o.concurrency != null) return knobbed(o.concurrency) ? [] : [pacingKnob(op, "concurrency", { min: 1, max: 256, step: 1 })];
    return o.rate == null || knobbed(o.rate) ? [] : [pacingKnob(op, "rate", { min: 0.5, max: 1000, step: 0.5 })];
  });
  return [...knobs, ...pacing];
}

function definitionKnob(name: string, k: DefinitionKnob): Knob {
  const kind = k.choices?.length ? "enum" : typeof k.default === "boolean" ? "bool" : typeof k.default === "string" ? "text" : Number.isInteger(k.default) ? "int" : "float";
  const numeric = kind === "int" || kind === "float";
  const min = k.min ?? undefined;
  const max = k.max ?? undefined;
  const knob: Knob = {
    path: `knobs.${name}`,
    section: "run",
    label: name,
    short: name,
    unit: k.unit || undefined,
    help: k.help ?? "",
    control: true,
    kind,
    live: k.live ?? true,
    optional: false,
  };
  if (min !== undefined) knob.min = min;
  if (max !== undefined) knob.max = max;
  if (k.choices?.length) knob.options = k.choices;
  if (numeric && min !== undefined && max !== undefined) knob.slider = { min, max, step: kind === "int" ? 1 : (max - min) / 200 };
  return knob;
}

/** The values a definition run goes with, at the controls' paths: each knob's (set, else its
 * default) and each operation's pacing (overridden, else the definition's literal). */
export function definitionValues(config: RunConfig): { knobs: Record<string, unknown>; operations: Record<string, Record<string, unknown>> } {
  const definition = config.definition as WorkloadDefinition | null | undefined;
  const set = (config.knobs ?? {}) as Record<string, unknown>;
  const overrides = (config.operations ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const knobs: Record<string, unknown> = {};
  for (const [name, k] of Object.entries(definition?.knobs ?? {})) knobs[name] = set[name] ?? k.default;
  const operations: Record<string, Record<string, unknown>> = {};
  for (const [op, o] of Object.entries(definition?.operations ?? {}) as [string, DefinitionOperation][]) {
    const own = overrides[op] ?? {};
    operations[op] = { rate: own.rate ?? o.rate, concurrency: own.concurrency ?? o.concurrency };
  }
  return { knobs, operations };
}

/** gRPC codes seen in the samples, most frequent first: one line each on the errors chart. */
export function errorCodes(samples: readonly Sample[]): string[] {
  const total = new Map<string, number>();
  for (const s of samples) for (const [code, n] of Object.entries(s.errors_by_code ?? {})) total.set(code, (total.get(code) ?? 0) + n);
  return [...total].sort((a, b) => b[1] - a[1]).map(([code]) => code);
}

/** The operations a definition run leaves off: the run's `enabled` override, else the definition's. */
export function offOperations(config: RunConfig | null | undefined): string[] {
  const definition = config?.definition as WorkloadDefinition | null | undefined;
  const overrides = (config?.operations ?? {}) as Record<string, { enabled?: boolean | null } | undefined>;
  return Object.entries(definition?.operations ?? {})
    .filter(([op, o]) => (overrides[op]?.enabled ?? (o as DefinitionOperation).enabled ?? true) === false)
    .map(([op]) => op);
}

/** The watch's charts (the same as the hand-written watcher's): notification latency with the lag,
 * poll duration with rows per poll, the poll's time at the server (server-timing) and its query
 * statistics (SPANNER_SYS, by the minute). */
const WATCH_CHARTS = ["notify", "poll", "poll-server", "server-poll"].map((id) => RUN_CHARTS.find((c) => c.id === id)).filter((c): c is ChartSpec => !!c);

/** Per operation that is on: its throughput (target against achieved) and its p50/p99 from the actual
 * and the intended start; then the watch's charts, if it has one; errors by code across the run; and
 * last the charts of the operations that are off (`off`), which stay empty unless switched on live. */
export function definitionCharts(definition: WorkloadDefinition, codes: readonly string[] = [], off: readonly string[] = []): ChartSpec[] {
  const ops = Object.keys(definition.operations);
  const errors: ChartSpec = {
    id: "errors",
    title: "Errors by gRPC code",
    unit: "per s",
    lines: [{ key: "errors_ps", label: "all errors/s", pick: gauge(Gauge.ERRORS_PS) }, ...codes.map((code) => ({ key: `err_${code}`, label: `${code}/s`, pick: errorsPerSecond(code) }))],
  };
  return [
    ...ops.filter((op) => !off.includes(op)).flatMap(operationCharts),
    ...(definition.watch ? WATCH_CHARTS : []),
    errors,
    ...ops.filter((op) => off.includes(op)).flatMap(operationCharts),
  ];
}

/** One operation's charts: its throughput and its latency. */
export function operationCharts(op: string): ChartSpec[] {
  return [
    {
      id: `op-${op}-throughput`,
      title: `${op}: throughput, target vs achieved`,
      unit: "/s",
      lines: [
        { key: `op_${op}_target`, label: "target/s", pick: gauge(opMetric(OpMetric.TARGET_PS, op)), dashed: true },
        { key: `op_${op}_ps`, label: "achieved/s", pick: gauge(opMetric(OpMetric.PS, op)) },
        { key: `op_${op}_scheduled`, label: "scheduled/s", pick: gauge(opMetric(OpMetric.SCHEDULED_PS, op)), dashed: true },
      ],
    },
    {
      id: `op-${op}-latency`,
      title: `${op}: latency from the actual and the intended start`,
      unit: "ms",
      lines: [
        { key: `op_${op}_p50`, label: "p50", pick: latency(opMetric(OpMetric.LATENCY, op), "p50") },
        { key: `op_${op}_p99`, label: "p99", pick: latency(opMetric(OpMetric.LATENCY, op), "p99") },
        { key: `op_${op}_intended_p50`, label: "p50 from intended start", pick: latency(opMetric(OpMetric.INTENDED, op), "p50"), dashed: true },
        { key: `op_${op}_intended_p99`, label: "p99 from intended start", pick: latency(opMetric(OpMetric.INTENDED, op), "p99"), dashed: true },
      ],
    },
  ];
}

/** Where a run's definition came from: "my_shop v2 (saved)", "shop (built-in)"; null when the
 * run ran none, or one sent inline (or ran before runs recorded it). */
export function definitionOrigin(config: { definition_origin?: RunConfig["definition_origin"] | undefined } | null | undefined): string | null {
  const origin = config?.definition_origin;
  if (!origin) return null;
  return origin.saved_version != null ? `${origin.definition} v${origin.saved_version} (saved)` : `${origin.definition} (built-in)`;
}
