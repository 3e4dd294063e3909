// Props shared by the time charts (TimeChart and the feature charts built on recharts directly).
import { formatDuration, formatNumber } from "@/lib/format";

/** The tooltip of a time chart: t+elapsed as the label, values to two digits, the theme's colours. */
export const TIME_TOOLTIP = {
  isAnimationActive: false,
  labelFormatter: (x: unknown) => `t+${formatDuration(Number(x))}`,
  formatter: (v: unknown) => (typeof v === "number" ? formatNumber(v, 2) : String(v)),
  contentStyle: { background: "var(--surface)", border: "1px solid var(--border)", color: "var(--text)" },
} as const;
