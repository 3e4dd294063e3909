// Map FastAPI validation errors ({detail: [{loc, msg}]}) to the form's fields.

export function serverFieldErrors(detail: unknown, isField: (path: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(detail)) return out;
  for (const item of detail) {
    if (!item || typeof item !== "object" || !("loc" in item) || !Array.isArray(item.loc)) continue;
    const parts = (item.loc as unknown[]).filter((p) => p !== "body" && p !== "config" && typeof p === "string") as string[];
    // pydantic puts model-validator errors on the section; find the deepest known field.
    for (let n = parts.length; n > 0; n--) {
      const path = parts.slice(0, n).join(".");
      if (isField(path)) {
        out[path] = String((item as { msg?: unknown }).msg ?? "invalid").replace(/^Value error, /, "");
        break;
      }
    }
  }
  return out;
}
