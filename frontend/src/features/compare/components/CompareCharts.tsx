// Overlaid charts of the compared runs, aligned by elapsed time, one colour per run.
import { useMemo } from "react";
import { colorAt } from "@/components/palette";
import { TimeChart } from "@/components/TimeChart";
import { alignRuns, gauge, latency } from "@/lib/series";
import { Gauge, Op, type Sample } from "@/lib/types";
import type { Comparison } from "../api/compare";

const METRICS: { id: string; title: string; unit: string; pick: (s: Sample) => number | null }[] = [
  { id: "cmp-tps", title: "Achieved transactions/s", unit: "tx/s", pick: gauge(Gauge.UPDATER_TPS) },
  { id: "cmp-updater-p99", title: "Updater latency p99", unit: "ms", pick: latency(Op.UPDATER_TXN, "p99") },
  { id: "cmp-updater-p50", title: "Updater latency p50", unit: "ms", pick: latency(Op.UPDATER_TXN, "p50") },
  { id: "cmp-notify-p50", title: "Change-notification latency p50", unit: "ms", pick: latency(Op.WATCHER_NOTIFY, "p50") },
  { id: "cmp-poll-p50", title: "Poll duration p50", unit: "ms", pick: latency(Op.WATCHER_POLL, "p50") },
  { id: "cmp-rows", title: "Rows per poll", unit: "rows", pick: gauge(Gauge.WATCHER_ROWS_PER_POLL) },
  { id: "cmp-reader-p99", title: "Reader latency p99", unit: "ms", pick: latency(Op.READER_READ, "p99") },
  { id: "cmp-sessions", title: "Sessions in use", unit: "sessions", pick: gauge(Gauge.SESSIONS_IN_USE) },
  { id: "cmp-errors", title: "Errors/s", unit: "per s", pick: gauge(Gauge.ERRORS_PS) },
];

export function CompareCharts({ comparison, labels }: { comparison: Comparison; labels: readonly string[] }) {
  const charts = useMemo(
    () =>
      METRICS.map((m) => ({ ...m, rows: alignRuns(comparison.series, m.pick) })).filter((c) =>
        c.rows.some((r) => comparison.series.some((_, i) => r[`r${i}`] != null)),
      ),
    [comparison.series],
  );
  const lines = comparison.series.map((s, i) => ({ key: `r${i}`, label: labels[i] ?? s.run_id, color: colorAt(i) }));
  if (charts.length === 0) return <p className="muted">No samples to chart.</p>;
  return (
    <div className="charts" data-testid="compare-charts">
      {charts.map((c) => (
        <TimeChart key={c.id} id={c.id} title={c.title} unit={c.unit} rows={c.rows} lines={lines} syncId="compare" />
      ))}
    </div>
  );
}
