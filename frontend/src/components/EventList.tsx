// A run's timeline: config changes and status changes, in order.
import { describeEvent } from "@/lib/events";
import { formatDuration } from "@/lib/format";
import { isConfigChange, isTargetEvent } from "@/lib/series";
import type { RunEvent } from "@/lib/types";

export function EventList({ events }: { events: readonly RunEvent[] }) {
  if (events.length === 0) return <p className="muted">No events.</p>;
  return (
    <ol className="events" data-testid="event-list">
      {events.map((event, i) => (
        <li key={event.id ?? i} className={`event event-${event.kind}`} data-testid="event">
          <span className="event-time">{typeof event.elapsed_s === "number" ? `t+${formatDuration(event.elapsed_s)}` : ""}</span>
          <span className="event-kind">{isConfigChange(event) ? "config" : isTargetEvent(event) ? "target" : event.kind}</span>
          <span className="event-text">{describeEvent(event)}</span>
          {event.who && <span className="muted"> by {event.who}</span>}
        </li>
      ))}
    </ol>
  );
}
