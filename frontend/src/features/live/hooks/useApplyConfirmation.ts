// Tracks one applied config patch until the run's timeline shows it: "pending" after sending,
// "confirmed" once a config_change event (or the streamed config) carries every changed value.
import { useCallback, useMemo, useState } from "react";
import { formatDuration } from "@/lib/format";
import { changeLabel, getPath } from "@/lib/knobs";
import { eventChanges, isConfigChange } from "@/lib/series";
import type { RunConfig, RunEvent } from "@/lib/types";

export type ApplyState = "idle" | "pending" | "confirmed";

interface Expected {
  changes: Record<string, unknown>;
  /** Events already on the timeline when the patch was sent. */
  after: number;
}

function same(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === "number" && typeof b === "number" && Math.abs(a - b) < 1e-9);
}

/** The event that confirms `expected`, if any arrived after it was sent. */
export function findConfirmation(expected: Expected, events: readonly RunEvent[]): RunEvent | null {
  for (const event of events.slice(expected.after)) {
    if (!isConfigChange(event)) continue;
    const got = eventChanges(event);
    if (Object.entries(expected.changes).every(([k, v]) => k in got && same(got[k], v))) return event;
  }
  return null;
}

export function useApplyConfirmation(events: readonly RunEvent[], config: RunConfig | null) {
  const [expected, setExpected] = useState<Expected | null>(null);
  const expect = useCallback((changes: Record<string, unknown>) => setExpected({ changes, after: events.length }), [events.length]);
  const cancel = useCallback(() => setExpected(null), []);

  const result = useMemo(() => {
    if (!expected) return { state: "idle" as ApplyState, label: "" };
    const event = findConfirmation(expected, events);
    if (event) {
      const at = typeof event.elapsed_s === "number" ? ` at t+${formatDuration(event.elapsed_s)}` : "";
      return { state: "confirmed" as ApplyState, label: `${changeLabel(expected.changes)}${at}` };
    }
    const inConfig = config && Object.entries(expected.changes).every(([k, v]) => same(getPath(config, k), v));
    if (inConfig) return { state: "confirmed" as ApplyState, label: changeLabel(expected.changes) };
    return { state: "pending" as ApplyState, label: "" };
  }, [expected, events, config]);

  return { ...result, expect, cancel };
}
