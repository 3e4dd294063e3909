// Polls /api/health; when the server cannot be reached, shows a banner and keeps retrying.
import { useEffect, useState } from "react";
import { fetchHealth } from "@/lib/api/health";
import { backoffMs } from "@/lib/backoff";

const HEALTHY_POLL_MS = 15_000;

export function ConnectionBanner() {
  const [down, setDown] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    fetchHealth(controller.signal)
      .then(() => {
        setDown(false);
        setAttempt(0);
        timer = setTimeout(() => setTick((t) => t + 1), HEALTHY_POLL_MS);
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

  if (!down) return null;
  return (
    <div className="banner banner-error" role="alert" data-testid="connection-banner">
      Lost the connection to the Spanload server. Retrying…
      <button type="button" onClick={() => setTick((t) => t + 1)}>
        Retry now
      </button>
    </div>
  );
}
