// Where a run's workers ran: one row per Ray node (or "this machine" for local workers), with
// the workers on it and what they did. Shown when any worker ran on a Ray node.
import { formatNumber } from "@/lib/format";
import type { WorkerCost } from "@/lib/types";

interface NodeRow {
  node: string;
  host: string;
  workers: number[];
  operations: number;
  cpuS: number | null;
}

function groupByNode(workers: readonly WorkerCost[]): NodeRow[] {
  const rows = new Map<string, NodeRow>();
  for (const w of workers) {
    const node = w.node ?? "this machine";
    const row = rows.get(node) ?? { node, host: w.host, workers: [], operations: 0, cpuS: null };
    row.workers.push(w.index);
    row.operations += w.operations;
    if (w.cpu_s !== null && w.cpu_s !== undefined) row.cpuS = (row.cpuS ?? 0) + w.cpu_s;
    rows.set(node, row);
  }
  return [...rows.values()];
}

export function WorkersByNode({ workers }: { workers: readonly WorkerCost[] }) {
  if (!workers.some((w) => w.node)) return null;
  return (
    <div className="table-scroll">
      <table className="table compact" data-testid="workers-by-node">
        <caption>Workers per Ray node</caption>
        <thead>
          <tr>
            <th>node</th>
            <th>host</th>
            <th>workers</th>
            <th className="num">operations</th>
            <th className="num">CPU s</th>
          </tr>
        </thead>
        <tbody>
          {groupByNode(workers).map((row) => (
            <tr key={row.node} data-testid="node-row">
              <td title={row.node}>{row.node.slice(0, 12)}</td>
              <td>{row.host}</td>
              <td>{row.workers.join(", ")}</td>
              <td className="num">{formatNumber(row.operations, 0)}</td>
              <td className="num">{formatNumber(row.cpuS, 2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
