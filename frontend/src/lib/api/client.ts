// The one API client: every REST call of the UI goes through `request`; the endpoint groups
// (runs.ts, samples.ts, presets.ts, compare.ts, health.ts, live.ts) are thin typed wrappers over it.
import { announceUnauthorized, getToken } from "@/lib/token";

export const API_BASE = "/api";

/** A problem of a workload definition, placed on its line and column (1-based) when known. */
export interface DefinitionProblem {
  path: string;
  line: number | null;
  column: number | null;
  message: string;
  statement?: string | null;
}

/** An HTTP error with the server's `{detail}` message (or a sentence about the transport), the
 * dotted config field at fault when the server names one (`field`), and a broken definition's
 * `problems`. */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: unknown;
  readonly field: string | null;
  readonly problems: readonly DefinitionProblem[];

  constructor(status: number, message: string, detail: unknown = null, body: unknown = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.detail = detail;
    const fields = body && typeof body === "object" ? (body as { field?: unknown; problems?: unknown }) : {};
    this.field = typeof fields.field === "string" ? fields.field : null;
    this.problems = Array.isArray(fields.problems) ? (fields.problems as DefinitionProblem[]) : [];
  }

  /** True when the server could not be reached at all. */
  get isNetwork(): boolean {
    return this.status === 0;
  }
}

/** FastAPI's `{detail}` is a string, or a list of validation errors with `loc` and `msg`. */
export function detailMessage(detail: unknown, fallback: string): string {
  if (typeof detail === "string" && detail) return detail;
  if (Array.isArray(detail) && detail.length > 0) {
    return detail
      .map((d) => {
        if (d && typeof d === "object" && "msg" in d) {
          const item = d as { loc?: unknown[]; msg: unknown };
          const loc = Array.isArray(item.loc) ? item.loc.filter((p) => p !== "body").join(".") : "";
          return loc ? `${loc}: ${String(item.msg)}` : String(item.msg);
        }
        return typeof d === "string" ? d : JSON.stringify(d);
      })
      .join("; ");
  }
  if (detail && typeof detail === "object") return JSON.stringify(detail);
  return fallback;
}

type Query = Record<string, string | number | boolean | null | undefined | readonly (string | number)[]>;

export function buildQuery(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    params.set(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Query;
  signal?: AbortSignal;
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { method = "GET", body, query, signal } = options;
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}${buildQuery(query)}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(0, "Cannot reach the Spanload server. Is `spanload serve` running?");
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let payload: unknown = null;
  if (text) {
    try {
      payload = JSON.parse(text);
    } catch {
      payload = text;
    }
  }
  if (!response.ok) {
    if (response.status === 401) announceUnauthorized();
    const detail = payload && typeof payload === "object" && "detail" in payload ? (payload as { detail: unknown }).detail : payload;
    throw new ApiError(response.status, detailMessage(detail, `${method} ${path} failed with HTTP ${response.status}`), detail, payload);
  }
  return payload as T;
}

/** A path segment from an id. */
export function enc(id: string): string {
  return encodeURIComponent(id);
}
