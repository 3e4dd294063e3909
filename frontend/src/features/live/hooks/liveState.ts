// The state a live viewer keeps, and how each websocket message changes it (a pure reducer).
import type { LiveMessage, PreloadStatus, RunConfig, RunEvent, RunState, Sample, Summary } from "@/lib/types";

/** At most this many samples stay in memory for the live charts (15 min at 1 s). */
export const LIVE_WINDOW = 900;

/** `refused`: the server refused the API token; the socket stays closed until the page has one.
 * `forbidden`: the server refused this page's origin (SPANLOAD_ALLOWED_ORIGINS); retrying cannot help. */
export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed" | "refused" | "forbidden";

export interface LiveState {
  config: RunConfig | null;
  status: RunState | null;
  reason: string | null;
  events: RunEvent[];
  samples: Sample[];
  summary: Summary | null;
  /** The load phase's latest progress, from the snapshot or a `preload` message. */
  preload: PreloadStatus | null;
  /** How often the server dropped this viewer for falling behind (it then reconnects). */
  dropped: number;
  snapshots: number;
}

export const initialLiveState: LiveState = {
  config: null,
  status: null,
  reason: null,
  events: [],
  samples: [],
  summary: null,
  preload: null,
  dropped: 0,
  snapshots: 0,
};

/** Append a sample in seq order, ignoring one already held, and keep the window bounded. */
export function appendSample(samples: readonly Sample[], sample: Sample, window = LIVE_WINDOW): Sample[] {
  const last = samples[samples.length - 1];
  let next: Sample[];
  if (!last || sample.seq > last.seq) {
    next = [...samples, sample];
  } else if (samples.some((s) => s.seq === sample.seq)) {
    return samples as Sample[];
  } else {
    next = [...samples, sample].sort((a, b) => a.seq - b.seq);
  }
  return next.length > window ? next.slice(next.length - window) : next;
}

function sameEvent(a: RunEvent, b: RunEvent): boolean {
  if (a.id != null && b.id != null) return a.id === b.id;
  return a.kind === b.kind && a.t === b.t && JSON.stringify(a.changes) === JSON.stringify(b.changes);
}

export function liveReducer(state: LiveState, message: LiveMessage): LiveState {
  switch (message.type) {
    case "snapshot": {
      // A snapshot replaces everything: it is how the page rebuilds after a reconnect.
      const samples = [...(message.samples ?? [])].sort((a, b) => a.seq - b.seq);
      return {
        ...state,
        config: message.run.current_config ?? message.run.config,
        status: message.run.status,
        reason: message.run.failure_reason ?? null,
        events: [...(message.events ?? [])],
        samples: samples.length > LIVE_WINDOW ? samples.slice(samples.length - LIVE_WINDOW) : samples,
        summary: message.run.summary ?? null,
        preload: message.preload ?? null,
        snapshots: state.snapshots + 1,
      };
    }
    case "sample":
      return { ...state, samples: appendSample(state.samples, message.sample) };
    case "status": {
      const events = message.event && !state.events.some((e) => sameEvent(e, message.event))
        ? [...state.events, message.event]
        : state.events;
      return { ...state, status: message.status, reason: message.reason ?? null, events };
    }
    case "config_change": {
      const events = state.events.some((e) => sameEvent(e, message.event)) ? state.events : [...state.events, message.event];
      return { ...state, events, config: message.config ?? state.config };
    }
    case "event":
      return state.events.some((e) => sameEvent(e, message.event)) ? state : { ...state, events: [...state.events, message.event] };
    case "preload":
      return { ...state, preload: message.preload };
    case "summary":
      return { ...state, summary: message.summary };
    case "dropped":
      return { ...state, dropped: state.dropped + 1 };
    default:
      return state;
  }
}

/** Parse one websocket frame; unknown or malformed frames give null (and are logged by the caller). */
export function parseLiveMessage(data: unknown): LiveMessage | null {
  if (typeof data !== "string") return null;
  try {
    const parsed: unknown = JSON.parse(data);
    if (parsed && typeof parsed === "object" && typeof (parsed as { type?: unknown }).type === "string") {
      return parsed as LiveMessage;
    }
  } catch {
    return null;
  }
  return null;
}
