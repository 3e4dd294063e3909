// The compared runs' capacity curves overlaid (hint against no hint, Python against Go workers,
// GoogleSQL against PG...): each run's p99 and p50 against its achieved throughput, its knee a dot.
// Only the runs that searched are asked for their curve (the others would answer 404) and drawn;
// nothing when none did.
import { CapacityCurveChart } from "@/components/CapacityCurve";
import { getCapacityCurve } from "@/lib/api/capacity";
import { useAsync } from "@/lib/useAsync";

export interface SearchedRun {
  id: string;
  label: string;
}

export function CompareCapacity({ runs }: { runs: readonly SearchedRun[] }) {
  const curves = useAsync((signal) => Promise.all(runs.map((r) => getCapacityCurve(r.id, signal))), [runs.map((r) => r.id).join(",")]);
  const series = (curves.data ?? []).flatMap((c, i) => (c ? [{ label: runs[i]?.label ?? "", points: c.points, knee: c.knee }] : []));
  if (series.length === 0) return null;
  return (
    <>
      <h2>Capacity curves</h2>
      <p className="muted small" data-testid="compare-knees">
        Knees: {series.map((s) => `${s.label} ${s.knee === null ? "none" : `${s.knee}/s`}`).join(", ")}
      </p>
      <CapacityCurveChart series={series} testId="compare-capacity" />
    </>
  );
}
