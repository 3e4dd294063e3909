// The full chart set of one run (live or saved), from typed rows and markers.
import { type ChartSpec, hasData, hasSignal, type Marker, RUN_CHARTS, type Row } from "@/lib/series";
import { TimeChart } from "./TimeChart";

export interface RunChartsProps {
  rows: readonly Row[];
  markers: readonly Marker[];
  charts?: readonly ChartSpec[];
  /** Charts without any data are listed in one line instead of drawn empty. */
  hideEmpty?: boolean;
  syncId?: string;
  height?: number;
  /** Why a chart has no data, by chart id (e.g. "Readers are off in this run."). */
  emptyText?: Partial<Record<string, string>>;
  /** Charts whose part of the load is off: drawn empty (with their emptyText) while every value is zero. */
  off?: ReadonlySet<string>;
}

const NO_ROWS: readonly Row[] = [];

export function RunCharts({ rows, markers, charts = RUN_CHARTS, hideEmpty = false, syncId = "run", height, emptyText = {}, off }: RunChartsProps) {
  // A chart of a part that is off, with nothing but zeros, is drawn as empty (or listed as such).
  const silent = (c: ChartSpec) => off?.has(c.id) === true && !hasSignal(rows, c);
  const drawn = (c: ChartSpec) => hasData(rows, c) && !silent(c);
  const shown = hideEmpty ? charts.filter(drawn) : charts;
  const hidden = hideEmpty ? charts.filter((c) => !drawn(c)) : [];
  return (
    <div className="charts-wrap">
      <div className="charts" data-testid="run-charts">
        {shown.map((chart) => (
          <TimeChart key={chart.id} id={chart.id} title={chart.title} unit={chart.unit} rightUnit={chart.rightUnit} help={chart.help} rows={silent(chart) ? NO_ROWS : rows} lines={chart.lines} markers={markers} syncId={syncId} height={height} emptyText={emptyText[chart.id]} />
        ))}
      </div>
      {hidden.length > 0 && <p className="muted small">No data in this run for: {hidden.map((c) => c.title).join("; ")}.</p>}
    </div>
  );
}
