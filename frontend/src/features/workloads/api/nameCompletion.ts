// Completion of table and column names in a definition's values (its SQL, `table:`, `columns:`): the
// tables of the target's database (GET /api/workloads/catalog) and those the definition's own DDL
// creates, with their columns.
import type { CompletionContext, CompletionResult, CompletionSource } from "@codemirror/autocomplete";

export interface KnownTable {
  name: string;
  columns: { name: string; type: string }[];
}

/** The tables a definition's `CREATE TABLE` statements make, with their columns (key clauses left out). */
export function tablesInDdl(text: string): KnownTable[] {
  const out: KnownTable[] = [];
  for (const m of text.matchAll(/CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?`?(\w+)`?\s*\(([^]*?)\)\s*PRIMARY\s+KEY/gi)) {
    const columns = [];
    for (const part of (m[2] ?? "").split(/,(?![^(<]*[)>])/)) {
      const col = /^\s*`?(\w+)`?\s+([A-Za-z]\w*(?:<[^>]*>|\([^)]*\))?)/.exec(part);
      if (col && !/^(CONSTRAINT|FOREIGN|CHECK)$/i.test(col[1] ?? "")) columns.push({ name: col[1] ?? "", type: (col[2] ?? "").toUpperCase() });
    }
    out.push({ name: m[1] ?? "", columns });
  }
  return out;
}

/** Tables first, then every column (its table and type as detail), each name once; the definition's own DDL wins. */
export function nameOptions(definition: readonly KnownTable[], target: readonly KnownTable[]): { label: string; type: string; detail: string }[] {
  const tables = new Map<string, KnownTable>();
  for (const t of [...target, ...definition]) tables.set(t.name, t);
  const options = [...tables.values()].map((t) => ({ label: t.name, type: "class", detail: "table" }));
  const seen = new Set(options.map((o) => o.label));
  for (const t of tables.values()) {
    for (const c of t.columns) {
      if (seen.has(c.name)) continue;
      seen.add(c.name);
      options.push({ label: c.name, type: "property", detail: `${t.name} ${c.type}` });
    }
  }
  return options;
}

/** A completion source for a word in a value position (not a key: the key completion has those). */
export function nameCompletion(target: () => readonly KnownTable[]): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const before = line.text.slice(0, context.pos - line.from);
    if (/^(\s*)(-\s+)?([A-Za-z_]\w*)?$/.test(before)) return null; // a key being typed
    const word = context.matchBefore(/\w+/);
    if (!word && !context.explicit) return null;
    const options = nameOptions(tablesInDdl(context.state.doc.toString()), target());
    return options.length ? { from: word?.from ?? context.pos, options, validFor: /^\w*$/ } : null;
  };
}
