// Rename a run and edit its notes and tags (PATCH /api/runs/{id}).
import { type FormEvent, useState } from "react";
import { updateRun } from "@/lib/api/runs";
import type { RunPublic } from "@/lib/types";
import { parseTags } from "../api/tags";

export function NotesEditor({ run, onSaved }: { run: RunPublic; onSaved: (run: RunPublic) => void }) {
  const [name, setName] = useState(run.name ?? "");
  const [notes, setNotes] = useState(run.notes ?? "");
  const [tags, setTags] = useState((run.tags ?? []).join(", "));
  const [state, setState] = useState<{ saving: boolean; error: string | null; saved: boolean }>({ saving: false, error: null, saved: false });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (name.length > 200) {
      setState({ saving: false, error: "The name must be at most 200 characters.", saved: false });
      return;
    }
    setState({ saving: true, error: null, saved: false });
    try {
      const updated = await updateRun(run.id, { name: name.trim() || null, notes, tags: parseTags(tags) });
      setState({ saving: false, error: null, saved: true });
      onSaved(updated);
    } catch (err) {
      setState({ saving: false, error: err instanceof Error ? err.message : String(err), saved: false });
    }
  };

  return (
    <form className="notes-form" onSubmit={submit} data-testid="notes-form">
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} data-testid="run-name-input" />
      </label>
      <label>
        Tags <span className="muted">(comma separated)</span>
        <input value={tags} onChange={(e) => setTags(e.target.value)} data-testid="run-tags-input" />
      </label>
      <label className="wide">
        Notes
        <textarea value={notes} onChange={(e) => setNotes(e.target.value)} rows={3} data-testid="run-notes-input" />
      </label>
      <div className="row">
        <button type="submit" disabled={state.saving}>
          {state.saving ? "Saving…" : "Save"}
        </button>
        {state.saved && <span className="good">Saved.</span>}
        {state.error && <span className="inline-error">{state.error}</span>}
      </div>
    </form>
  );
}
