// Which way is better for a metric, and the tone of a delta against the baseline.

export type Direction = "lower" | "higher" | "neutral";
export type Tone = "better" | "worse" | "same" | "neutral";

const LOWER_IS_BETTER = [/latency/, /\bp\d+/, /\.p\d+/, /_ms\b/, /\bms\b/, /lag/, /error/, /abort/, /behind/, /waiting/, /missing/, /duplicate/, /\.mean\b/, /\.max\b/, /duration/, /cpu/];
const HIGHER_IS_BETTER = [/tps\b/, /rps\b/, /_ps\b/, /throughput/, /per_s/, /changes/, /received/, /transactions/, /mutations/, /reads\b/, /polls/];

/** Lower latency is better, higher throughput is better; errors and lag are better lower. */
export function metricDirection(metric: string): Direction {
  const m = metric.toLowerCase();
  // Error and abort rates end in _ps like throughputs: test "lower" first.
  if (LOWER_IS_BETTER.some((re) => re.test(m))) return "lower";
  if (HIGHER_IS_BETTER.some((re) => re.test(m))) return "higher";
  return "neutral";
}

/** Relative changes smaller than this (1 %) count as "same". */
export const SAME_EPSILON = 0.01;

/**
 * Better or worse against the baseline. `better` is the API's own direction for the metric
 * (lower/higher/null); without it the direction is guessed from the metric's name.
 */
export function deltaTone(
  metric: string,
  delta: number | null | undefined,
  percent?: number | null,
  baseline?: number | null,
  better?: "lower" | "higher" | null,
): Tone {
  if (delta === null || delta === undefined || !Number.isFinite(delta)) return "neutral";
  const direction: Direction = better === undefined ? metricDirection(metric) : (better ?? "neutral");
  if (direction === "neutral") return "neutral";
  const relative = percent != null && Number.isFinite(percent) ? Math.abs(percent) / 100 : baseline ? Math.abs(delta / baseline) : Math.abs(delta) > 0 ? Infinity : 0;
  if (delta === 0 || relative < SAME_EPSILON) return "same";
  const improved = direction === "lower" ? delta < 0 : delta > 0;
  return improved ? "better" : "worse";
}
