// The one API client: every REST call of the UI goes through `request`.
import type {
  ComparePublic,
  ConfigPatch,
  Health,
  Preset,
  RunCreate,
  RunPublic,
  RunsPublic,
  RunUpdate,
  Sample,
  SamplesPublic,
  SnapshotMessage,
} from "./types";
import { announceUnauthorized, getToken } from "./token";

export const API_BASE = "/api";

/** An HTTP error with the server's `{detail}` message (or a sentence about the transport). */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: unknown;

  constructor(status: number, message: string, detail: unknown = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.detail = detail;
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
    throw new ApiError(response.status, detailMessage(detail, `${method} ${path} failed with HTTP ${response.status}`), detail);
  }
  return payload as T;
}

export interface RunsQuery {
  status?: string;
  preset?: string;
  name?: string;
  limit?: number;
  offset?: number;
}

export interface SamplesQuery {
  from?: number;
  to?: number;
  max_points?: number;
}

function enc(id: string): string {
  return encodeURIComponent(id);
}

export const api = {
  health: (signal?: AbortSignal) => request<Health>("/health", { signal }),
  presets: async (signal?: AbortSignal): Promise<Preset[]> => normalizePresets(await request<unknown>("/presets", { signal })),
  listRuns: (query: RunsQuery = {}, signal?: AbortSignal) => request<RunsPublic>("/runs", { query: { ...query }, signal }),
  getRun: (id: string, signal?: AbortSignal) => request<RunPublic>(`/runs/${enc(id)}`, { signal }),
  createRun: (body: RunCreate) => request<RunPublic>("/runs", { method: "POST", body }),
  updateRun: (id: string, body: RunUpdate) => request<RunPublic>(`/runs/${enc(id)}`, { method: "PATCH", body }),
  deleteRun: (id: string) => request<void>(`/runs/${enc(id)}`, { method: "DELETE" }),
  patchConfig: (id: string, patch: ConfigPatch) => request<unknown>(`/runs/${enc(id)}/config`, { method: "PATCH", body: patch }),
  pause: (id: string) => request<RunPublic>(`/runs/${enc(id)}/pause`, { method: "POST" }),
  resume: (id: string) => request<RunPublic>(`/runs/${enc(id)}/resume`, { method: "POST" }),
  stop: (id: string) => request<RunPublic>(`/runs/${enc(id)}/stop`, { method: "POST" }),
  samples: async (id: string, query: SamplesQuery = {}, signal?: AbortSignal): Promise<Sample[]> => {
    const payload = await request<SamplesPublic | Sample[]>(`/runs/${enc(id)}/samples`, { query: { ...query }, signal });
    return Array.isArray(payload) ? payload : payload.data;
  },
  compare: (ids: readonly string[], signal?: AbortSignal) => request<ComparePublic>("/compare", { query: { ids }, signal }),
  /** A download link; it carries the token in the query, as a link cannot send a header. */
  exportUrl: (id: string, format: "json" | "csv") => `${API_BASE}/runs/${enc(id)}/export${buildQuery({ format, token: getToken() })}`,
};

/** `GET /api/presets` may answer a list of presets or a `{name: preset}` map. */
export function normalizePresets(payload: unknown): Preset[] {
  const list = Array.isArray(payload)
    ? payload
    : payload && typeof payload === "object" && "data" in payload && Array.isArray((payload as { data: unknown }).data)
      ? (payload as { data: unknown[] }).data
      : payload && typeof payload === "object"
        ? Object.entries(payload as Record<string, unknown>).map(([name, value]) =>
            value && typeof value === "object" && "config" in value ? { name, ...(value as object) } : { name, config: value },
          )
        : [];
  return list.filter((p): p is Preset => !!p && typeof p === "object" && "name" in p && "config" in p);
}

/** Samples in the snapshot the live socket sends on (re)connect: downsampled on the server. */
export const LIVE_SNAPSHOT_POINTS = 600;

/** The websocket URL of a run's live stream, on the same host as the page. */
export function liveUrl(
  id: string,
  location: Pick<Location, "protocol" | "host"> = window.location,
  maxPoints: number = LIVE_SNAPSHOT_POINTS,
): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  // Browsers cannot set headers on a websocket: the token goes in the query.
  return `${scheme}//${location.host}${API_BASE}/runs/${enc(id)}/live${buildQuery({ max_points: maxPoints, token: getToken() })}`;
}

const SNAPSHOT_TIMEOUT_MS = 15_000;
const WS_RUN_NOT_FOUND = 4404;

/**
 * A run's events (and status) as its live socket's snapshot gives them: connect, read the first
 * message, close. The REST API has no events route; the snapshot is where the timeline lives.
 */
export function fetchSnapshot(id: string, maxPoints = 2): Promise<SnapshotMessage> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(liveUrl(id, window.location, maxPoints));
    const timer = setTimeout(() => {
      ws.close();
      reject(new ApiError(0, "The live stream sent no snapshot in time."));
    }, SNAPSHOT_TIMEOUT_MS);
    ws.onmessage = (event: MessageEvent) => {
      clearTimeout(timer);
      ws.onclose = null;
      ws.close(1000);
      try {
        const message = JSON.parse(String(event.data)) as { type?: string };
        if (message.type === "snapshot") resolve(message as SnapshotMessage);
        else reject(new ApiError(0, `Expected a snapshot, got a ${String(message.type)} message.`));
      } catch {
        reject(new ApiError(0, "The live stream sent a malformed snapshot."));
      }
    };
    ws.onclose = (event: CloseEvent) => {
      clearTimeout(timer);
      reject(
        event.code === WS_RUN_NOT_FOUND
          ? new ApiError(404, event.reason || `run ${id} not found`)
          : new ApiError(0, "Could not open the run's live stream."),
      );
    };
  });
}
