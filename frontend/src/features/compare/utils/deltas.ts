// The tone and words of a delta against the baseline: coloured only when it lies beyond the runs'
// own noise (the API's bootstrap over report intervals); a delta inside the noise is neutral, with
// its interval, so a reader never takes noise for a result.
import { formatPercent, formatSigned } from "@/lib/format";

export type Tone = "better" | "worse" | "noise" | "neutral";

export interface DeltaCell {
  delta: number | null;
  percent: number | null;
  uncertainty: number | null;
  significant: boolean | null;
}

/** Better or worse only for a significant delta of a metric with a direction; noise inside the interval. */
export function deltaTone(cell: DeltaCell, better: "lower" | "higher" | null): Tone {
  if (cell.delta === null || !Number.isFinite(cell.delta)) return "neutral";
  if (cell.significant === false) return "noise";
  if (cell.significant !== true || better === null || cell.delta === 0) return "neutral";
  const improved = better === "lower" ? cell.delta < 0 : cell.delta > 0;
  return improved ? "better" : "worse";
}

/** "-12.7% ± 15.0%, not significant", "+890.0% ± 40.0%", or the delta alone where noise was not assessed. */
export function deltaText(cell: DeltaCell, baseline: number | null): string {
  if (cell.delta === null) return "";
  const relative = cell.percent !== null && baseline !== null && baseline !== 0;
  const change = relative ? formatPercent(cell.percent) : formatSigned(cell.delta);
  if (cell.uncertainty === null || cell.significant === null) return `${formatSigned(cell.delta)} (${formatPercent(cell.percent)})`;
  const spread = relative && baseline !== null ? `± ${formatPercent((100 * cell.uncertainty) / Math.abs(baseline)).replace(/^\+/, "")}` : `± ${formatSigned(cell.uncertainty).replace(/^\+/, "")}`;
  return `${change} ${spread}${cell.significant ? "" : ", not significant"}`;
}
