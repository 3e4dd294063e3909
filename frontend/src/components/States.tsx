// Loading, error and empty states, used on every page.
import type { ReactNode } from "react";
import { Link } from "react-router-dom";

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <div className="state state-loading" role="status" data-testid="loading">
      <span className="spinner" aria-hidden /> {what}…
    </div>
  );
}

export function ErrorState({ error, onRetry, title = "Something went wrong" }: { error: Error | string; onRetry?: () => void; title?: string }) {
  const message = typeof error === "string" ? error : error.message;
  return (
    <div className="state state-error" role="alert" data-testid="error">
      <strong>{title}</strong>
      <p>{message}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <div className="state state-empty" data-testid="empty">
      {children}
    </div>
  );
}

/** A run's page for an id that names no run: the server's sentence (a 404), and the way back. */
export function NoSuchRun({ error }: { error: Error }) {
  return (
    <div className="state state-empty" role="alert" data-testid="no-such-run">
      <strong>No such run</strong>
      <p>{error.message}</p>
      <Link to="/">Back to the runs</Link>
    </div>
  );
}
