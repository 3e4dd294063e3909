// Reconnect timing shared by the live socket and the connection banner.

/** The longest wait between two reconnects: a restarted backend is found within about this. */
export const MAX_BACKOFF_MS = 5_000;

/** Exponential backoff with jitter for reconnects: 0.5 s, 1 s, 2 s ... capped at MAX_BACKOFF_MS. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.8 + 0.4 * random()));
}
