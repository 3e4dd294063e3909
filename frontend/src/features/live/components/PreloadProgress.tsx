// The load phase's progress bar on the live page: percent, rows, rows/s and ETA, while the run is
// preloading (from the snapshot, then every `preload` message).
import { formatDuration } from "@/lib/format";
import type { PreloadStatus, RunState } from "@/lib/types";

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

export function PreloadProgress({ status, preload }: { status: RunState | null; preload: PreloadStatus | null }) {
  if (status !== "preloading") return null;
  const percent = preload ? Math.min(100, Math.max(0, preload.percent)) : 0;
  return (
    <div className="preload-progress" data-testid="preload-progress" data-percent={percent.toFixed(1)}>
      <div className="preload-progress-head">
        <strong>Preloading</strong>
        <span className="muted small">the measured phase starts when the table is full</span>
      </div>
      <progress max={100} value={percent} aria-label="preload progress" />
      <p className="small" data-testid="preload-progress-text">
        {preload
          ? `${percent.toFixed(1)}% · ${fmt(preload.rows_done)} / ${fmt(preload.rows)} rows · ${fmt(preload.rows_per_s)} rows/s · ETA ${formatDuration(preload.eta_s)}`
          : "Starting the load…"}
      </p>
    </div>
  );
}
