// The compared runs' capacity curves overlaid (hint against no hint, Python against Go workers,
// GoogleSQL against PG...): each run's p99 and p50 against its achieved throughput, its knee a dot.
// Only the runs that searched are drawn; nothing when none did.
import { CapacityCurveChart } from "@/components/CapacityCurve";
import { getCapacityCurve } from "@/lib/api/capacity";
import { useAsync } from "@/lib/useAsync";

export function CompareCapacity({ ids, labels }: { ids: readonly string[]; labels: readonly string[] }) {
  const curves = useAsync((signal) => Promise.all(ids.map((id) => getCapacityCurve(id, signal))), [ids.join(",")]);
  const series = (curves.data ?? []).flatMap((c, i) => (c ? [{ label: labels[i] ?? ids[i] ?? "", points: c.points, knee: c.knee }] : []));
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
