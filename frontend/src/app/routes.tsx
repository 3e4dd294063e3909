// Every page of the app, and the shell around them.
import { lazy, type ReactNode, Suspense } from "react";
import { Link, Navigate, Route, Routes, useLocation } from "react-router-dom";
import { RunsPage } from "@/features/runs/components/RunsPage";
import { Empty, Loading } from "@/components/States";
import { Layout } from "./Layout";

/** The Workloads page carries the editor (CodeMirror, a YAML parser): its own chunk, loaded when
 * opened. The live page (its controls and charts generated from a definition) is one too, so the
 * first page, the runs list, carries neither. */
const WorkloadsPage = lazy(() => import("@/features/workloads/components/WorkloadsPage").then((m) => ({ default: m.WorkloadsPage })));
const LivePage = lazy(() => import("@/features/live/components/LivePage").then((m) => ({ default: m.LivePage })));
/** The run detail page draws charts (recharts, ~100 kB gzipped) and the New run page carries the
 * knobs' form: the first page, the runs list, needs neither (scripts/first-page-budget.mjs). */
const RunDetailPage = lazy(() => import("@/features/runs/components/RunDetailPage").then((m) => ({ default: m.RunDetailPage })));
const NewRunPage = lazy(() => import("@/features/new-run/components/NewRunPage").then((m) => ({ default: m.NewRunPage })));
/** Compare too: its definition diff is code the runs list does not need. */
const ComparePage = lazy(() => import("@/features/compare/components/ComparePage").then((m) => ({ default: m.ComparePage })));

/** The Experiments page drives a seed report's variants from the browser. */
const ExperimentsPage = lazy(() => import("@/features/experiments/components/ExperimentsPage").then((m) => ({ default: m.ExperimentsPage })));

function Later({ what, children }: { what: string; children: ReactNode }) {
  return <Suspense fallback={<Loading what={what} />}>{children}</Suspense>;
}

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<RunsPage />} />
        <Route path="runs" element={<ToRuns />} />
        <Route
          path="runs/new"
          element={
            <Later what="Loading the New run page">
              <NewRunPage />
            </Later>
          }
        />
        <Route
          path="runs/:id"
          element={
            <Later what="Loading the run">
              <RunDetailPage />
            </Later>
          }
        />
        <Route
          path="runs/:id/live"
          element={
            <Later what="Loading the live page">
              <LivePage />
            </Later>
          }
        />
        <Route
          path="compare"
          element={
            <Later what="Loading the comparison">
              <ComparePage />
            </Later>
          }
        />
        <Route
          path="workloads"
          element={
            <Later what="Loading the workload editor">
              <WorkloadsPage />
            </Later>
          }
        />
        <Route
          path="experiments"
          element={
            <Later what="Loading the experiments">
              <ExperimentsPage />
            </Later>
          }
        />
        <Route
          path="*"
          element={
            <Empty>
              This page does not exist. <Link to="/">Back to the runs</Link>.
            </Empty>
          }
        />
      </Route>
    </Routes>
  );
}

/** /runs is where a user looks for the runs list (its children live under /runs/...); it is at /. */
function ToRuns() {
  const { search } = useLocation();
  return <Navigate to={`/${search}`} replace />;
}
