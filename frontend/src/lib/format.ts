// Formatting of figures for tables, status lines and axes.

export function formatNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(0);
  return value.toFixed(digits).replace(/\.0+$/, "");
}

export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2)} ms`;
}

/** A summary average by name: a latency in seconds (`server.commit_latency_s`) shown in ms, as
 * every other latency is (a 6 ms commit read 0.01). */
export function formatAverage(name: string, value: number | null | undefined): [label: string, text: string] {
  if (name.endsWith("latency_s")) return [name.slice(0, -2), formatMs(value == null ? value : value * 1000)];
  return [name, formatNumber(value ?? null, 2)];
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "—";
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h) return `${h}h ${String(m).padStart(2, "0")}m ${String(sec).padStart(2, "0")}s`;
  if (m) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}

/** Milliseconds since the epoch from an ISO datetime or unix seconds. */
export function toMs(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number") return Number.isFinite(value) ? value * 1000 : null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

export function formatDate(value: string | number | null | undefined): string {
  const ms = toMs(value);
  if (ms === null) return typeof value === "string" && value ? value : "—";
  return new Date(ms).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
}

export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const sign = value > 0 ? "+" : "";
  return `${sign}${value.toFixed(1)}%`;
}

export function formatSigned(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const sign = value > 0 ? "+" : "";
  return `${sign}${value.toFixed(digits)}`;
}

/** Seconds between two ISO times, or until now when the end is missing. */
export function secondsBetween(start: string | number | null | undefined, end: string | number | null | undefined, now = Date.now()): number | null {
  const a = toMs(start);
  if (a === null) return null;
  const b = toMs(end) ?? now;
  return Math.max(0, (b - a) / 1000);
}

/** Units that count things, as one of them: "1 process", "1 watcher" (not "1 processes"). */
const SINGULAR_UNITS: Readonly<Record<string, string>> = {
  customers: "customer",
  executors: "executor",
  items: "item",
  keys: "key",
  mutations: "mutation",
  processes: "process",
  rows: "row",
  sessions: "session",
  terminals: "terminal",
  warehouses: "warehouse",
  watchers: "watcher",
};

/** The knob's unit as it reads after this value: singular after exactly 1. */
export function unitFor(knob: { unit?: string | undefined }, value: unknown): string {
  if (!knob.unit) return "";
  return Number(value) === 1 ? (SINGULAR_UNITS[knob.unit] ?? knob.unit) : knob.unit;
}
