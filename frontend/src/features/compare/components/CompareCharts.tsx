// Overlaid charts of the compared runs, aligned by elapsed time, one colour per run.
import { useMemo } from "react";
import { colorAt } from "@/components/palette";
import { TimeChart } from "@/components/TimeChart";
import type { Marker } from "@/lib/series";
import type { ComparePublic } from "@/lib/types";
import { compareRows } from "../api/compare";

/** Series names as the API flattens samples (store/series.py). */
const METRICS: { id: string; title: string; unit: string; series: string }[] = [
  { id: "cmp-tps", title: "Achieved transactions/s", unit: "tx/s", series: "gauges.updater.tps" },
  { id: "cmp-updater-p99", title: "Updater latency p99", unit: "ms", series: "latency.updater.txn.p99" },
  { id: "cmp-updater-p50", title: "Updater latency p50", unit: "ms", series: "latency.updater.txn.p50" },
  { id: "cmp-notify-p50", title: "Change-notification latency p50", unit: "ms", series: "latency.watcher.notify.p50" },
  { id: "cmp-lag", title: "Watcher lag", unit: "ms", series: "gauges.watcher.lag_ms" },
  { id: "cmp-poll-p50", title: "Poll duration p50", unit: "ms", series: "latency.watcher.poll.p50" },
  { id: "cmp-rows", title: "Rows per poll", unit: "rows", series: "gauges.watcher.rows_per_poll" },
  { id: "cmp-reader-p99", title: "Reader latency p99", unit: "ms", series: "latency.reader.read.p99" },
  { id: "cmp-reads", title: "Achieved reads/s", unit: "reads/s", series: "gauges.reader.rps" },
  { id: "cmp-sessions", title: "Sessions in use", unit: "sessions", series: "gauges.sessions.in_use" },
  { id: "cmp-errors", title: "Errors/s", unit: "per s", series: "gauges.errors_ps" },
  { id: "cmp-aborts", title: "Aborts/s", unit: "per s", series: "gauges.aborts_ps" },
  { id: "cmp-server-commit", title: "Server-side avg commit latency", unit: "s", series: "gauges.server.txn_avg_commit_latency_s" },
];

export function CompareCharts({ comparison, labels, markers = [] }: { comparison: ComparePublic; labels: readonly string[]; markers?: readonly Marker[] }) {
  const charts = useMemo(
    () =>
      METRICS.map((m) => ({ ...m, rows: compareRows(comparison.series, m.series) })).filter((c) =>
        c.rows.some((r) => comparison.series.runs.some((_, i) => r[`r${i}`] != null)),
      ),
    [comparison.series],
  );
  const lines = comparison.series.runs.map((s, i) => ({ key: `r${i}`, label: labels[i] ?? s.run_id, color: colorAt(i) }));
  if (charts.length === 0) return <p className="muted">No samples to chart.</p>;
  return (
    <div className="charts" data-testid="compare-charts">
      {charts.map((c) => (
        <TimeChart key={c.id} id={c.id} title={c.title} unit={c.unit} rows={c.rows} lines={lines} markers={markers} syncId="compare" />
      ))}
    </div>
  );
}
