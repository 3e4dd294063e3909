// Choose the runs to compare; the selection lives in the URL (?ids=a,b).
import { useState } from "react";
import { listRuns } from "@/lib/api/runs";
import { useAsync } from "@/lib/useAsync";
import { MAX_RUNS } from "../api/compare";

export function RunPicker({ selected, onChange }: { selected: readonly string[]; onChange: (ids: string[]) => void }) {
  const [open, setOpen] = useState(selected.length < 2);
  const runs = useAsync((signal) => (open ? listRuns({ limit: 100 }, signal) : Promise.resolve(null)), [open]);
  const toggle = (id: string) => onChange(selected.includes(id) ? selected.filter((x) => x !== id) : selected.length >= MAX_RUNS ? [...selected] : [...selected, id]);
  return (
    <details className="run-picker" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Choose runs ({selected.length} selected)</summary>
      {runs.error ? (
        <p className="inline-error">{runs.error.message}</p>
      ) : !runs.data ? (
        <p className="muted">Loading runs…</p>
      ) : runs.data.data.length === 0 ? (
        <p className="muted">No runs to compare yet.</p>
      ) : (
        <ul className="picker-list">
          {runs.data.data.map((r) => (
            <li key={r.id}>
              <label>
                <input type="checkbox" checked={selected.includes(r.id)} disabled={!selected.includes(r.id) && selected.length >= MAX_RUNS} onChange={() => toggle(r.id)} />{" "}
                {r.name ?? r.id} <span className="muted small">{r.preset ?? ""} · {r.status}</span>
                {selected[0] === r.id && <span className="tag">baseline</span>}
              </label>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
