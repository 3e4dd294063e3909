// The one API client: every REST call of the UI goes through `api` (openapi-fetch on the generated
// `paths`); the endpoint groups (runs.ts, samples.ts, presets.ts, compare.ts, health.ts, live.ts,
// workloads.ts) are thin wrappers over it.
import createClient from "openapi-fetch";
import { announceUnauthorized, getToken } from "@/lib/token";
import type { Served } from "@/lib/types";
import type { paths } from "./schema.gen";

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

/** A query string for a URL the UI builds itself (a download link, the live socket). */
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

/**
 * Every request goes through here: the token as a bearer header, the transport's failure as an
 * ApiError with a sentence. openapi-fetch hands a Request; it is sent as (url, init), read at call
 * time, so that tests may stub the global fetch.
 */
async function send(request: Request): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const body = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
  if (body) headers["Content-Type"] = "application/json";
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const url = new URL(request.url); // sent as a path on the page's origin, as the UI always did
  try {
    return await fetch(url.pathname + url.search, { method: request.method, headers, body: body || undefined, signal: request.signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(0, "Cannot reach the Spanload server. Is `spanload serve` running?");
  }
}

/**
 * The API client, typed on the OpenAPI `paths` generated from the backend (schema.gen.ts, `make
 * types`): a renamed route, parameter or body field fails `tsc`.
 */
export const api = createClient<paths>({
  baseUrl: typeof window === "undefined" ? "http://localhost" : window.location.origin,
  fetch: send,
  querySerializer: { array: { style: "form", explode: false } },
});

/** An openapi-fetch answer's data, or its error as an ApiError with the server's sentence. The data
 * is typed as served: the schema lists fields with a default factory as optional, but the server
 * writes every field (lib/types.ts, Served). */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Served<T>> {
  const { data, error, response } = await call;
  if (response.ok) return data as Served<T>;
  if (response.status === 401) announceUnauthorized();
  const detail = error && typeof error === "object" && "detail" in error ? (error as { detail: unknown }).detail : (error ?? null);
  const where = new URL(response.url || "/", "http://localhost").pathname;
  throw new ApiError(response.status, detailMessage(detail, `${where} failed with HTTP ${response.status}`), detail, error ?? null);
}

/** A path segment from an id, for the URLs the UI builds itself. */
export function enc(id: string): string {
  return encodeURIComponent(id);
}
