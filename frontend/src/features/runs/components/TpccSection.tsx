// A TPC-C run's own figures: tpmC, each transaction type's share of the mix against the standard
// (45/43/4/4/4) with its rollbacks, aborts, retries and errors, and the consistency conditions 1-4
// checked after the run (a failed one also fails the run, with the condition in its reason).
import { formatNumber } from "@/lib/format";
import { TPCC_TYPES } from "@/lib/series";
import type { TpccSummary } from "@/lib/types";

const CONDITIONS: Record<string, string> = {
  condition_1: "W_YTD = sum(D_YTD)",
  condition_2: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
  condition_3: "new-order rows have no gaps",
  condition_4: "sum(O_OL_CNT) = order-line rows",
};

export function TpccSection({ tpcc }: { tpcc: TpccSummary }) {
  const conditions = Object.entries(tpcc.consistency).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div className="tpcc" data-testid="tpcc-summary">
      <h2>TPC-C</h2>
      <p>
        <strong data-testid="tpcc-tpmc">{formatNumber(tpcc.tpmc, 1)}</strong> tpmC (committed New-Orders per minute) on {tpcc.warehouses} warehouse
        {tpcc.warehouses === 1 ? "" : "s"}
      </p>
      <div className="table-scroll">
        <table className="table compact" data-testid="tpcc-mix">
          <caption>Mix and retries per transaction type</caption>
          <thead>
            <tr>
              <th>type</th>
              <th className="num">done</th>
              <th className="num">share %</th>
              <th className="num">standard %</th>
              <th className="num">rolled back</th>
              <th className="num">aborts</th>
              <th className="num">retries</th>
              <th className="num">errors</th>
            </tr>
          </thead>
          <tbody>
            {TPCC_TYPES.map((t) => {
              const f = tpcc.by_type[t];
              if (!f) return null;
              return (
                <tr key={t} data-testid={`tpcc-row-${t}`}>
                  <th scope="row">{t.replace("_", "-")}</th>
                  <td className="num">{formatNumber(f.completed, 0)}</td>
                  <td className="num">{formatNumber(f.share_pct, 1)}</td>
                  <td className="num">{formatNumber(f.standard_pct, 1)}</td>
                  <td className="num">{formatNumber(f.rollbacks, 0)}</td>
                  <td className="num">{formatNumber(f.aborts, 0)}</td>
                  <td className="num">{formatNumber(f.retries, 0)}</td>
                  <td className="num">{formatNumber(f.errors, 0)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="table-scroll">
        <table className="table compact" data-testid="tpcc-consistency">
          <caption>Consistency after the run (clause 3.3.2)</caption>
          <tbody>
            {conditions.length === 0 ? (
              <tr>
                <td className="bad">{tpcc.consistency_error ?? "not checked"}</td>
              </tr>
            ) : (
              conditions.map(([name, verdict]) => (
                <tr key={name}>
                  <th scope="row">{name.replace("_", " ")}</th>
                  <td className="muted">{CONDITIONS[name] ?? ""}</td>
                  <td className={verdict === "ok" ? "ok" : "bad"} data-testid={`tpcc-${name}`}>
                    {verdict}
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}
