/** "a, b,,a" -> ["a", "b"]: tags from a comma-separated input. */
export function parseTags(text: string): string[] {
  return [...new Set(text.split(",").map((t) => t.trim()).filter(Boolean))];
}
