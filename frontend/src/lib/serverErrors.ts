// Place a server 422 on the form's field: the API names the dotted config field at fault
// (`field`, "watcher.shard_filter") beside its sentence (`detail`, "watcher.shard_filter: needs
// ..."); FastAPI's own body validation gives a list of `{loc, msg}` instead.
import type { ApiError } from "@/lib/api/client";

/** The deepest known field at or above a dotted path ("config.target.database" -> "target.database"). */
function knownField(parts: readonly string[], isField: (path: string) => boolean): string | undefined {
  const rest = parts.filter((p) => p !== "body" && p !== "config");
  for (let n = rest.length; n > 0; n--) {
    const path = rest.slice(0, n).join(".");
    if (isField(path)) return path;
  }
  return undefined;
}

export function serverFieldErrors(err: ApiError, isField: (path: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  if (err.field) {
    const path = knownField(err.field.split("."), isField);
    if (path) {
      const text = typeof err.detail === "string" ? err.detail : err.message;
      // The sentence may name several fields ("a: ...; b: ..."): keep the part about this one.
      const own = text.split("; ").find((part) => part.startsWith(`${err.field}: `)) ?? text;
      out[path] = own.replace(`${err.field}: `, "");
    }
    return out;
  }
  if (!Array.isArray(err.detail)) return out;
  for (const item of err.detail) {
    if (!item || typeof item !== "object" || !("loc" in item) || !Array.isArray(item.loc)) continue;
    const path = knownField((item.loc as unknown[]).filter((p): p is string => typeof p === "string"), isField);
    if (path) out[path] = String((item as { msg?: unknown }).msg ?? "invalid").replace(/^Value error, /, "");
  }
  return out;
}
