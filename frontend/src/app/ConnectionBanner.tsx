// From the health poll (useHealth): when the server cannot be reached, a banner (it keeps
// retrying); while the local Spanner that serve supervises is being restarted, a banner saying so;
// and in the header, the local Spanner's state and restart count (LocalSpannerState).
import type { Health } from "@/lib/types";
import type { HealthPoll } from "./useHealth";

export function ConnectionBanner({ health, down, retry }: HealthPoll) {
  if (down) {
    return (
      <div className="banner banner-error" role="alert" data-testid="connection-banner">
        Lost the connection to the Spanload server. Retrying…
        <button type="button" onClick={retry}>
          Retry now
        </button>
      </div>
    );
  }
  const local = health?.local_spanner;
  if (local?.state !== "restarting") return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="local-spanner-banner">
      The local Spanner {local.last_exit ?? "stopped"}; serve is restarting it on {local.address}. Runs against it count the
      outage as errors and recover when it is back.
    </div>
  );
}

/** The local Spanner's state in the header: up, restarting or down, and how often it was restarted. */
export function LocalSpannerState({ health }: { health: Health | null }) {
  const local = health?.local_spanner;
  if (!local?.address) return null;
  const restarts = local.restarts > 0 ? ` · restarted ${local.restarts}×` : "";
  return (
    <span className={`local-spanner local-spanner-${local.state}`} data-testid="local-spanner-state" title={local.last_exit ? `last exit: ${local.last_exit}` : undefined}>
      local Spanner: {local.state}
      {restarts}
    </span>
  );
}
