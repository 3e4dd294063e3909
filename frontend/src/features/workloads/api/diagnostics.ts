// The server's problems with a definition, as CodeMirror diagnostics on their lines.
import type { Diagnostic } from "@codemirror/lint";
import type { Text } from "@codemirror/state";
import type { DefinitionProblem } from "@/lib/api/client";

/** A problem as a diagnostic on its line (from its column to the line's end); one without a line on the first. */
export function problemDiagnostics(doc: Text, problems: readonly DefinitionProblem[]): Diagnostic[] {
  return problems.map((p) => {
    const line = doc.line(Math.min(Math.max(p.line ?? 1, 1), doc.lines));
    const from = Math.min(line.from + Math.max((p.column ?? 1) - 1, 0), line.to);
    const to = from < line.to ? line.to : Math.min(from + 1, doc.length);
    const where = p.path ? `${p.path}: ` : "";
    return { from, to: Math.max(to, from), severity: "error", message: `${where}${p.message}`, source: p.statement ?? undefined };
  });
}
