// WS /api/runs/{id}/live: the URL of a run's live stream, its close codes, and a one-shot snapshot.
import type { SnapshotMessage } from "@/lib/types";
import { getToken } from "@/lib/token";
import { API_BASE, ApiError, buildQuery, enc } from "./client";
import { checkOrigin } from "./health";

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

/**
 * Why the server refused a live socket before opening it, when it did: a browser reports a refused
 * handshake as a bare 1006, so ask POST /api/health/origin, which the same Host, Origin and token
 * checks answer. The refusal (403: this page's origin is not allowed; 401: the token), or null.
 */
export async function liveRefusal(): Promise<ApiError | null> {
  try {
    await checkOrigin();
    return null;
  } catch (err) {
    return err instanceof ApiError && (err.status === 401 || err.status === 403) ? err : null;
  }
}

/** Close codes of the live socket (backend/spanload/api/live.py, deps.py and guard.py). */
export const WS_CLOSE = {
  /** The run ended (or the viewer left): a normal close. */
  NORMAL: 1000,
  /** The API token is missing or wrong, or the page's origin is refused (reason "Origin not
   * allowed"): reconnecting cannot help. Browsers see these only as 1006; see liveRefusal. */
  POLICY_VIOLATION: 1008,
  /** The server dropped a viewer that fell too far behind: reconnect and rebuild from the snapshot. */
  TRY_AGAIN_LATER: 1013,
  /** The run does not exist (a websocket 404). */
  RUN_NOT_FOUND: 4404,
} as const;

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
      ws.close(WS_CLOSE.NORMAL);
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
      if (event.code === WS_CLOSE.RUN_NOT_FOUND) {
        reject(new ApiError(404, event.reason || `run ${id} not found`));
        return;
      }
      void liveRefusal().then((refusal) => reject(refusal ?? new ApiError(0, "Could not open the run's live stream.")));
    };
  });
}
