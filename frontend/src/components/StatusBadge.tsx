import { isActive, type RunState } from "@/lib/types";

export function StatusBadge({ status }: { status: RunState | string | null | undefined }) {
  if (!status) return <span className="badge">unknown</span>;
  const live = status === "running";
  return (
    <span className={`badge badge-${status}${isActive(status) ? " badge-active" : ""}`} data-testid="status-badge" data-status={status}>
      {live && <span className="live-dot" aria-hidden />}
      {live ? "live" : status}
    </span>
  );
}
