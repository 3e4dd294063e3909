// A capacity search under way: its curve, point by point as steps are judged (each judged step is a
// `capacity` event on the timeline; the curve itself is the server's, fetched again on each), the
// knee marked as soon as a step broke. A lazy module: the chart loads only for a search.
import { useEffect, useState } from "react";
import { CapacityCurveChart } from "@/components/CapacityCurve";
import { type CapacityCurve, getCapacityCurve } from "@/lib/api/capacity";
import type { RunEvent } from "@/lib/types";

export default function CapacityLive({ runId, events }: { runId: string; events: readonly RunEvent[] }) {
  const judged = events.filter((e) => e.kind === "capacity").length;
  const [curve, setCurve] = useState<CapacityCurve | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (judged === 0) return undefined;
    const abort = new AbortController();
    getCapacityCurve(runId, abort.signal)
      .then((c) => {
        setCurve(c);
        setError(null);
      })
      .catch((err: unknown) => {
        if (!abort.signal.aborted) setError(err instanceof Error ? err.message : String(err));
      });
    return () => abort.abort();
  }, [runId, judged]);

  const knee = curve?.points.find((p) => p.knee);
  return (
    <section className="capacity-live" data-testid="capacity-live" data-judged={judged}>
      <h2>Capacity search</h2>
      {judged === 0 || !curve ? (
        <p className="muted small">The first step is under way; each step draws a point when it is judged.</p>
      ) : (
        <>
          <p className="small" data-testid="capacity-live-knee">
            {knee ? `Knee so far: ${knee.rate}/s` : "No step has held yet."} {curve.limited_by && `Limited by ${curve.limited_by}.`}
          </p>
          <CapacityCurveChart series={[{ label: "this run", points: curve.points }]} />
        </>
      )}
      {error && (
        <p className="inline-error" role="alert">
          Could not load the curve: {error}
        </p>
      )}
    </section>
  );
}
