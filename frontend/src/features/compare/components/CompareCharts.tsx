// Overlaid charts of the compared runs, aligned by elapsed time, one colour per run.
import { useMemo } from "react";
import { colorAt } from "@/components/palette";
import { TimeChart } from "@/components/TimeChart";
import type { Marker } from "@/lib/series";
import type { ComparePublic } from "@/lib/types";
import { compareCharts, operationOverlays } from "../api/compare";

export function CompareCharts({ comparison, labels, markers = [] }: { comparison: ComparePublic; labels: readonly string[]; markers?: readonly Marker[] }) {
  const charts = useMemo(() => compareCharts(comparison.series), [comparison.series]);
  const overlays = useMemo(
    () =>
      operationOverlays(
        comparison.series,
        comparison.runs.map((r) => Object.keys(r.config.definition?.operations ?? {})),
        labels,
      ),
    [comparison.series, comparison.runs, labels],
  );
  const lines = comparison.series.runs.map((s, i) => ({ key: `r${i}`, label: labels[i] ?? s.run_id, color: colorAt(i) }));
  if (charts.length === 0 && overlays.length === 0) return <p className="muted">No samples to chart.</p>;
  return (
    <div className="charts" data-testid="compare-charts">
      {overlays.map((c) => (
        <TimeChart key={c.id} id={c.id} title={c.title} unit="/s" rightUnit="ms" rows={c.rows} lines={c.lines} markers={markers} syncId="compare" />
      ))}
      {charts.map((c) => (
        <TimeChart key={c.id} id={c.id} title={c.title} unit={c.unit} rows={c.rows} lines={lines} markers={markers} syncId="compare" />
      ))}
    </div>
  );
}
