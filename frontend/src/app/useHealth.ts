// Polls /api/health: every 15 s while all is well, every second while the local Spanner is being
// restarted, and with a growing backoff while the server cannot be reached.
import { useEffect, useState } from "react";
import { fetchHealth } from "@/lib/api/health";
import { backoffMs } from "@/lib/backoff";
import type { Health } from "@/lib/types";

const HEALTHY_POLL_MS = 15_000;
/** While the local Spanner is not up, look again this often, to show it back soon. */
const RESTARTING_POLL_MS = 1_000;

export interface HealthPoll {
  health: Health | null;
  /** The server could not be reached at the last poll. */
  down: boolean;
  retry: () => void;
}

export function useHealth(): HealthPoll {
  const [health, setHealth] = useState<Health | null>(null);
  const [down, setDown] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    fetchHealth(controller.signal)
      .then((body) => {
        setHealth(body);
        setDown(false);
        setAttempt(0);
        const restarting = body.local_spanner?.state === "restarting";
        timer = setTimeout(() => setTick((t) => t + 1), restarting ? RESTARTING_POLL_MS : HEALTHY_POLL_MS);
      })
      .catch(() => {
        if (controller.signal.aborted) return;
        setDown(true);
        setAttempt((a) => a + 1);
        timer = setTimeout(() => setTick((t) => t + 1), backoffMs(Math.min(attempt, 4)));
      });
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- re-run on each tick only
  }, [tick]);

  return { health, down, retry: () => setTick((t) => t + 1) };
}

