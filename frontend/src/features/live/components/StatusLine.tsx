// Elapsed time, totals, achieved rate and the change reconciliation of a live run.
import { StatusBadge } from "@/components/StatusBadge";
import { formatDuration, formatNumber } from "@/lib/format";
import { TPCC_TPMC } from "@/lib/series";
import { Gauge, type Reconciliation, type RunState, type Sample } from "@/lib/types";

export function ReconciliationText({ rec }: { rec: Reconciliation | null | undefined }) {
  if (!rec) return <span className="muted">reconciliation when the run ends</span>;
  return (
    <span className={rec.ok ? "good" : "bad"} data-testid="reconciliation-status">
      reconciliation {rec.ok ? "OK" : "MISMATCH"}: {formatNumber(rec.final_versions_received, 0)}/{formatNumber(rec.keys_written, 0)} final versions received,{" "}
      {formatNumber(rec.final_versions_missing, 0)} missing, {formatNumber(rec.duplicates, 0)} duplicates
      {rec.detail ? ` (${rec.detail})` : ""}
    </span>
  );
}

interface StatusLineProps {
  status: RunState | null;
  latest: Sample | undefined;
  reconciliation: Reconciliation | null | undefined;
  reason: string | null;
  /** A definition run: its rates are per operation (the table under this line), not the updater's. */
  definition?: boolean;
}

export function StatusLine({ status, latest, reconciliation, reason, definition = false }: StatusLineProps) {
  const totals = latest?.totals;
  return (
    <div className="status-line" data-testid="status-line">
      <StatusBadge status={status} />
      <span>
        elapsed <strong data-testid="elapsed">{formatDuration(latest?.elapsed_s ?? 0)}</strong>
      </span>
      {!definition && (
        <span>
          achieved <strong data-testid="achieved-tps">{formatNumber(latest?.gauges?.[Gauge.UPDATER_TPS] ?? null)}</strong> tx/s of{" "}
          {formatNumber(latest?.gauges?.[Gauge.UPDATER_TARGET_TPS] ?? null)}
        </span>
      )}
      {latest?.gauges?.[TPCC_TPMC] != null && (
        <span>
          <strong data-testid="tpmc">{formatNumber(latest.gauges[TPCC_TPMC], 0)}</strong> tpmC
        </span>
      )}
      {totals && definition && (
        <span data-testid="totals">
          {formatNumber(totals.errors, 0)} errors · {formatNumber(totals.aborts, 0)} aborts
        </span>
      )}
      {totals && !definition && (
        <span data-testid="totals">
          {formatNumber(totals.transactions, 0)} tx · {formatNumber(totals.mutations, 0)} mutations · {formatNumber(totals.received_changes, 0)} changes received ·{" "}
          {formatNumber(totals.polls, 0)} polls · {formatNumber(totals.reads, 0)} reads · {formatNumber(totals.errors, 0)} errors · {formatNumber(totals.aborts, 0)} aborts
        </span>
      )}
      {(!definition || reconciliation) && <ReconciliationText rec={reconciliation} />}
      {reason && <span className="bad">{reason}</span>}
    </div>
  );
}
