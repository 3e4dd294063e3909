// The one hook that owns a run's live websocket: it connects, reconnects with backoff, and
// rebuilds the whole state from the snapshot the server sends on every (re)connect.
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { liveRefusal, liveUrl, WS_CLOSE } from "@/lib/api/live";
import { announceUnauthorized } from "@/lib/token";
import { backoffMs } from "@/lib/backoff";
import { type ConnectionState, initialLiveState, liveReducer, type LiveState, parseLiveMessage } from "./liveState";
import { isActive, type LiveMessage } from "@/lib/types";

export interface LiveRun extends LiveState {
  connection: ConnectionState;
  /** Reconnect attempts since the last successful open. */
  attempt: number;
  /** When the next reconnect happens (ms since epoch), while reconnecting. */
  retryAt: number | null;
  /** Reconnect at once instead of waiting for the backoff. */
  retryNow: () => void;
  /** The server's sentence when it refused this page's origin (connection `forbidden`). */
  refusal: string | null;
}

type Action = { kind: "message"; message: LiveMessage } | { kind: "reset" };

function reducer(state: LiveState, action: Action): LiveState {
  return action.kind === "reset" ? initialLiveState : liveReducer(state, action.message);
}

const defaultUrl = (id: string) => liveUrl(id);

export function useLiveRun(runId: string | undefined, url: (id: string) => string = defaultUrl): LiveRun {
  const [state, dispatch] = useReducer(reducer, initialLiveState);
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  const [attempt, setAttempt] = useState(0);
  const [retryAt, setRetryAt] = useState<number | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const statusRef = useRef(state.status);
  statusRef.current = state.status;
  const urlRef = useRef(url);
  urlRef.current = url;

  useEffect(() => {
    dispatch({ kind: "reset" });
  }, [runId]);

  useEffect(() => {
    if (!runId) return undefined;
    let disposed = false;
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let failures = 0;

    const refuse = (state: "refused" | "forbidden", sentence: string | null) => {
      if (timer) clearTimeout(timer);
      timer = null;
      setRetryAt(null);
      setRefusal(sentence);
      setConnection(state);
    };

    const connect = () => {
      timer = null;
      setRetryAt(null);
      setRefusal(null);
      setConnection(failures === 0 ? "connecting" : "reconnecting");
      const ws = new WebSocket(urlRef.current(runId));
      socket = ws;
      let opened = false;
      ws.onopen = () => {
        if (disposed || socket !== ws) return;
        opened = true;
        failures = 0;
        setAttempt(0);
        setConnection("open");
      };
      ws.onmessage = (event: MessageEvent) => {
        if (disposed || socket !== ws) return;
        const message = parseLiveMessage(event.data);
        if (message) dispatch({ kind: "message", message });
        else console.warn("spanload live: ignoring an unknown message", event.data);
      };
      ws.onclose = (event: CloseEvent) => {
        if (disposed || socket !== ws) return;
        socket = null;
        const finished = statusRef.current != null && !isActive(statusRef.current);
        if ((finished && event.code === WS_CLOSE.NORMAL) || event.code === WS_CLOSE.RUN_NOT_FOUND) {
          setConnection("closed");
          return;
        }
        if (event.code === WS_CLOSE.POLICY_VIOLATION && !event.reason.endsWith("not allowed")) {
          // A wrong or missing token: retrying would be refused again. The shell asks for the token.
          announceUnauthorized();
          refuse("refused", null);
          return;
        }
        // Anything else, a slow viewer dropped with TRY_AGAIN_LATER included: reconnect and rebuild.
        const delay = backoffMs(failures);
        failures += 1;
        const attemptNow = failures;
        setAttempt(failures);
        setConnection("reconnecting");
        setRetryAt(Date.now() + delay);
        timer = setTimeout(connect, delay);
        if (opened) return;
        // Closed before opening: a browser cannot tell a refused handshake from a lost server. Ask.
        void liveRefusal().then((refused) => {
          if (disposed || !refused || failures !== attemptNow || socket !== null) return;
          refuse(refused.status === 403 ? "forbidden" : "refused", refused.status === 403 ? refused.message : null);
        });
      };
      // An error is always followed by a close, which schedules the retry.
      ws.onerror = () => undefined;
    };

    connect();
    return () => {
      disposed = true;
      if (timer) clearTimeout(timer);
      if (socket) {
        socket.onclose = null;
        socket.close(WS_CLOSE.NORMAL);
      }
    };
  }, [runId, generation]);

  const retryNow = useCallback(() => setGeneration((g) => g + 1), []);

  return { ...state, connection, attempt, retryAt, retryNow, refusal };
}
