// A finished run's whole-run figures: percentiles (overall and per worker), rates, totals,
// errors by code (a figure the run has none of: n/a with why), the change reconciliation, and each worker process with its client CPU per op.
import { PercentileTable } from "@/components/PercentileTable";
import { formatAverage, formatDuration, formatNumber } from "@/lib/format";
import type { Summary, WorkerCost } from "@/lib/types";
import { WorkersByNode } from "./WorkersByNode";

function WorkersTable({ workers }: { workers: readonly WorkerCost[] }) {
  return (
    <div className="table-scroll">
      <table className="table compact" data-testid="workers">
        <caption>Workers: client CPU per operation (transactions, polls and reads)</caption>
        <thead>
          <tr>
            <th>#</th>
            <th>runtime</th>
            <th>pid</th>
            <th>host</th>
            <th>node</th>
            <th className="num">operations</th>
            <th className="num">CPU s</th>
            <th className="num">CPU ms/op</th>
          </tr>
        </thead>
        <tbody>
          {workers.map((w) => (
            <tr key={w.index} data-testid="worker-row">
              <td>{w.index}</td>
              <td>{w.runtime}</td>
              <td>{w.pid}</td>
              <td>{w.host}</td>
              <td>{w.node ?? "—"}</td>
              <td className="num">{formatNumber(w.operations, 0)}</td>
              <td className="num">{formatNumber(w.cpu_s ?? null, 2)}</td>
              <td className="num">{formatNumber(w.cpu_ms_per_op ?? null, 3)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Why a run that has ended has no summary, by its status; a run still going gets it at its end. */
const NO_SUMMARY: Partial<Record<string, string>> = {
  failed: "No summary: the run failed before it could write one (the reason is at the top of this page).",
  interrupted: "No summary: the control plane stopped while the run was going.",
};

export function SummarySection({ summary, status }: { summary: Summary | null | undefined; status?: string }) {
  if (!summary)
    return (
      <p className="muted" data-testid="no-summary">
        {(status && NO_SUMMARY[status]) ?? "No summary yet: it is written when the run ends."}
      </p>
    );
  const rec = summary.reconciliation;
  return (
    <div className="summary" data-testid="summary">
      <p>
        Duration <strong>{formatDuration(summary.duration_s)}</strong>
      </p>
      <PercentileTable latency={summary.latency} caption="Latency, whole run (merged histograms)" testId="summary-latency" />
      <div className="kv-grid">
        <table className="table compact">
          <caption>Average rates</caption>
          <tbody>
            {Object.entries(summary.rates).map(([k, v]) => {
              const [label, text] = formatAverage(k, v);
              return (
                <tr key={k} data-testid="average-row">
                  <th scope="row">{label}</th>
                  <td className="num">{text}</td>
                </tr>
              );
            })}
            {Object.entries(summary.unavailable ?? {}).map(([k, reason]) => (
              <tr key={k} data-testid="unavailable-row">
                <th scope="row">{formatAverage(k, null)[0]}</th>
                <td className="num muted" title={reason}>
                  n/a
                </td>
              </tr>
            ))}
          </tbody>
          {Object.keys(summary.unavailable ?? {}).length > 0 && (
            <tfoot>
              <tr>
                <td colSpan={2} className="small muted" data-testid="unavailable-reasons">
                  n/a: {[...new Set(Object.values(summary.unavailable ?? {}))].join("; ")}
                </td>
              </tr>
            </tfoot>
          )}
        </table>
        <table className="table compact">
          <caption>Totals</caption>
          <tbody>
            {Object.entries(summary.totals ?? {}).map(([k, v]) => (
              <tr key={k}>
                <th scope="row">{k.replace(/_/g, " ")}</th>
                <td className="num">{formatNumber(v, 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {Object.keys(summary.errors_by_code ?? {}).length > 0 && (
          <table className="table compact">
            <caption>Errors by code</caption>
            <tbody>
              {Object.entries(summary.errors_by_code).map(([k, v]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td className="num">{formatNumber(v, 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {rec && (
          <table className="table compact" data-testid="reconciliation">
            <caption>
              Change reconciliation <span className={rec.ok ? "good" : "bad"}>{rec.ok ? "OK" : "MISMATCH"}</span>
            </caption>
            <tbody>
              {Object.entries(rec)
                .filter(([k, v]) => k !== "ok" && typeof v === "number")
                .map(([k, v]) => (
                  <tr key={k}>
                    <th scope="row">{k.replace(/_/g, " ")}</th>
                    <td className="num">{formatNumber(v as number, 0)}</td>
                  </tr>
                ))}
            </tbody>
            {rec.detail && (
              <tfoot>
                <tr>
                  <td colSpan={2} className="small muted">
                    {rec.detail}
                  </td>
                </tr>
              </tfoot>
            )}
          </table>
        )}
      </div>
      {summary.workers.length > 0 && <WorkersTable workers={summary.workers} />}
      <WorkersByNode workers={summary.workers} />
    </div>
  );
}
