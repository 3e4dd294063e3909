// Compare 2 to 6 runs: overlaid charts aligned by elapsed time, a summary table with deltas
// against the baseline (the first run), and the config fields that differ. The URL holds the selection.
import { useMemo } from "react";
import { useSearchParams } from "react-router-dom";
import { ErrorState, Loading } from "@/components/States";
import { fetchSnapshot } from "@/lib/api/live";
import { useAsync } from "@/lib/useAsync";
import { fetchComparison } from "@/lib/api/compare";
import { compareMarkers, MAX_RUNS, MIN_RUNS, parseIds } from "../api/compare";
import { legendLabels } from "../utils/legend";
import { CompareBreakdown } from "./CompareBreakdown";
import { CompareCapacity } from "./CompareCapacity";
import { CompareCharts } from "./CompareCharts";
import { CompareInterfaces } from "./CompareInterfaces";
import { CompareSummaryTable } from "./CompareSummaryTable";
import { ConfigDiffTable } from "./ConfigDiffTable";
import { DefinitionDiff } from "./DefinitionDiff";
import { RunPicker } from "./RunPicker";

export function ComparePage() {
  const [params, setParams] = useSearchParams();
  const ids = useMemo(() => parseIds(params.get("ids")), [params]);
  const enough = ids.length >= MIN_RUNS && ids.length <= MAX_RUNS;
  const comparison = useAsync((signal) => (enough ? fetchComparison(ids, signal) : Promise.resolve(null)), [ids.join(","), enough]);
  const setIds = (next: string[]) => setParams(next.length ? { ids: next.join(",") } : {}, { replace: false });

  const labels = useMemo(() => (comparison.data ? legendLabels(comparison.data.runs, comparison.data.config_diff) : []), [comparison.data]);
  // The runs' timelines (live changes) come with each run's snapshot; markers are a bonus, so a
  // failure here only leaves them out.
  const timelines = useAsync(
    () => (enough ? Promise.all(ids.map((id) => fetchSnapshot(id).then((s) => s.events))) : Promise.resolve([])),
    [ids.join(","), enough],
  );

  return (
    <section className="page" data-testid="compare-page">
      <div className="page-head">
        <h1>Compare runs</h1>
      </div>
      <RunPicker selected={ids} onChange={setIds} />
      {!enough ? (
        <p className="muted" data-testid="compare-hint">
          Pick {MIN_RUNS} to {MAX_RUNS} runs to compare ({ids.length} selected). The first one is the baseline.
        </p>
      ) : comparison.error ? (
        <ErrorState error={comparison.error} onRetry={comparison.reload} title="Could not compare these runs" />
      ) : !comparison.data ? (
        <Loading what="Comparing" />
      ) : (
        <>
          <h2>Summary</h2>
          <p className="muted small">
            Deltas against the baseline, {labels[0]}, each ± how far its 99 % interval, from the runs' own second-to-second variation, reaches towards zero. Only a delta
            whose interval excludes zero is coloured: green better (lower latency, higher throughput), red worse; one inside the noise is marked not significant.
          </p>
          <CompareSummaryTable comparison={comparison.data} labels={labels} />
          {comparison.data.runs.some((r) => r.config.capacity) && (
            <CompareCapacity runs={comparison.data.runs.flatMap((r, i) => (r.config.capacity ? [{ id: r.id, label: labels[i] ?? r.id }] : []))} />
          )}
          <CompareInterfaces comparison={comparison.data} labels={labels} />
          <h2>Where the time goes</h2>
          <CompareBreakdown comparison={comparison.data} labels={labels} />
          <h2>Config differences</h2>
          <div className={comparison.data.runs.some((r) => r.config.definition) ? "two-col" : undefined}>
            <ConfigDiffTable comparison={comparison.data} labels={labels} />
            <DefinitionDiff comparison={comparison.data} labels={labels} />
          </div>
          <h2>Charts</h2>
          <CompareCharts comparison={comparison.data} labels={labels} markers={compareMarkers(timelines.data ?? [])} />
        </>
      )}
    </section>
  );
}
