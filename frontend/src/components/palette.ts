// Line colours readable on both the light and the dark theme.
export const LINE_COLORS = ["#3b82f6", "#f59e0b", "#ef4444", "#10b981", "#a855f7", "#ec4899", "#14b8a6", "#84cc16"];
export const MARKER_COLOR = "#8b5cf6";

export function colorAt(i: number): string {
  return LINE_COLORS[i % LINE_COLORS.length] as string;
}
