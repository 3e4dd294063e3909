// Live edits of a run's load profile: skip to the next stage, extend the current one, or hold (the
// profile stops; the rate it set last holds). Each takes effect at once on the server.
import { useState } from "react";
import { editProfile, type ProfileEdit, type ProfileStatus } from "@/lib/api/capacity";

export function ProfileControls({ runId, stages, enabled }: { runId: string; stages: number; enabled: boolean }) {
  const [seconds, setSeconds] = useState(30);
  const [status, setStatus] = useState<ProfileStatus | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const over = status !== null && (status.abandoned || status.ended);

  const send = async (edit: ProfileEdit) => {
    setBusy(true);
    setError(null);
    try {
      setStatus(await editProfile(runId, edit));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const off = !enabled || busy || over;
  return (
    <div className="profile-controls" data-testid="profile-controls">
      <span className="muted small">Profile ({stages} stages):</span>{" "}
      <button type="button" onClick={() => send({ action: "skip" })} disabled={off} data-testid="profile-skip">
        Skip stage
      </button>{" "}
      <button type="button" onClick={() => send({ action: "extend", seconds })} disabled={off} data-testid="profile-extend">
        Extend by
      </button>{" "}
      <input
        type="number"
        min={1}
        aria-label="seconds to extend the stage by"
        value={seconds}
        onChange={(e) => setSeconds(Math.max(1, Number(e.target.value) || 1))}
        style={{ width: "5em" }}
        data-testid="profile-extend-seconds"
      />{" "}
      s{" "}
      <button type="button" onClick={() => send({ action: "abandon" })} disabled={off} data-testid="profile-hold">
        Hold here
      </button>
      {status && (
        <span className="small" data-testid="profile-status">
          {" "}
          {status.abandoned
            ? `abandoned: ${status.rate ?? "-"}/s holds`
            : status.ended
              ? "the profile has ended"
              : `stage ${(status.stage ?? 0) + 1} of ${status.stages}, ${Math.round(status.position_s)} of ${Math.round(status.total_s)} s, at ${status.rate ?? "-"}/s`}
        </span>
      )}
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
