// When the compared runs ran different workload definitions: each run's definition against the
// baseline's, one line per field (the changed lines with one line of context), beside the config diff.
import { canonicalLines, hunks, lineDiff } from "@/lib/lineDiff";
import { definitionOrigin } from "@/lib/definition";
import type { ComparePublic } from "@/lib/types";

const SIGN = { same: " ", removed: "-", added: "+" } as const;

export function DefinitionDiff({ comparison, labels }: { comparison: ComparePublic; labels: readonly string[] }) {
  const texts = comparison.runs.map((r) => (r.config.definition ? canonicalLines(r.config.definition) : null));
  const base = texts[0];
  if (!base || texts.every((t) => !t)) return null;
  const origin = (i: number) => {
    const text = definitionOrigin(comparison.runs[i]?.config);
    return text ? ` (${text})` : "";
  };
  const others = texts.map((t, i) => ({ t, i })).filter(({ t, i }) => i > 0 && t && t.join("\n") !== base.join("\n"));
  return (
    <div className="definition-diff" data-testid="definition-diff">
      <h3>Workload definitions</h3>
      {comparison.runs.some((r) => definitionOrigin(r.config)) && (
        <p className="small" data-testid="definition-origins">
          {comparison.runs.map((r, i) => `${labels[i] ?? r.id}: ${definitionOrigin(r.config) ?? "inline"}`).join(" · ")}
        </p>
      )}
      {others.length === 0 && <p className="muted">The runs ran the same definition{texts.some((t) => !t) ? " (where they ran one)" : ""}.</p>}
      {others.map(({ t, i }) => (
        <div key={i}>
          <p className="small">
            {labels[0]}
            {origin(0)} → {labels[i]}
            {origin(i)}
          </p>
          <pre className="diff" data-testid={`definition-diff-${i}`}>
            {hunks(lineDiff(base, t ?? []), 1).map((d, k) =>
              d === null ? (
                <span key={k} className="diff-gap">
                  {"⋯\n"}
                </span>
              ) : (
                <span key={k} className={`diff-${d.kind}`}>
                  {`${SIGN[d.kind]} ${d.text}\n`}
                </span>
              ),
            )}
          </pre>
        </div>
      ))}
    </div>
  );
}
