// The report's picture: one operation kind's round trip as a 100 % bar of its parts, each part
// labelled with its share, its mean in ms and how it was obtained (measured, derived, SPANNER_SYS).
import { PART_COLORS, PART_LABELS, partNotes, shares, SOURCE_LABELS } from "@/lib/breakdown";
import { formatMs } from "@/lib/format";
import type { Breakdown, Part } from "@/lib/types";

export interface BreakdownBarProps {
  breakdown: Breakdown | undefined;
  /** Shown before the bar: the operation kind, or the run in a comparison. */
  label: string;
  testId?: string;
}

export function BreakdownBar({ breakdown, label, testId }: BreakdownBarProps) {
  const parts = shares(breakdown);
  return (
    <div className="breakdown-row" data-testid={testId}>
      <div className="breakdown-label">
        <strong>{label}</strong>
        <span className="muted small">{breakdown && breakdown.count > 0 ? ` ${formatMs(breakdown.round_trip_ms)} mean, ${breakdown.count.toLocaleString("en-US")} ops` : " no operations"}</span>
      </div>
      <div className="breakdown-bar" role="img" aria-label={parts.map((p) => `${PART_LABELS[p.part]} ${p.pct.toFixed(1)}%`).join(", ")}>
        {parts
          .filter((p) => p.pct > 0)
          .map((p) => (
            <span
              key={p.part}
              className="breakdown-segment"
              data-part={p.part}
              data-pct={p.pct.toFixed(1)}
              style={{ width: `${p.pct}%`, background: PART_COLORS[p.part] }}
              title={`${PART_LABELS[p.part]}: ${p.pct.toFixed(1)} % (${formatMs(p.ms)}, ${SOURCE_LABELS[p.source]})`}
            >
              {p.pct >= 8 ? `${p.pct.toFixed(0)}%` : ""}
            </span>
          ))}
      </div>
    </div>
  );
}

/** The legend of the bars: each part's colour, and per part how it was obtained in this breakdown. */
export function BreakdownLegend({ breakdown }: { breakdown: Breakdown | undefined }) {
  const parts = shares(breakdown);
  return (
    <>
      <ul className="breakdown-legend small" data-testid="breakdown-legend">
        {parts.map((p) => (
          <li key={p.part} data-part={p.part} data-source={p.source}>
            <span className="swatch" style={{ background: PART_COLORS[p.part] }} /> {PART_LABELS[p.part]}: {p.pct.toFixed(1)} %, {formatMs(p.ms)}{" "}
            <span className="muted">({SOURCE_LABELS[p.source]})</span>
          </li>
        ))}
      </ul>
      <PartNotes parts={parts.map((p) => p.part)} />
    </>
  );
}

/** The footnotes of the parts shown (PGAdapter's part is derived: how). */
export function PartNotes({ parts }: { parts: readonly Part[] }) {
  return (
    <>
      {partNotes(parts).map(({ part, note }) => (
        <p key={part} className="small muted" data-testid={`breakdown-note-${part}`}>
          {note}
        </p>
      ))}
    </>
  );
}
