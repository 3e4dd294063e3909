// Every page of the app, and the shell around them.
import { lazy, Suspense } from "react";
import { Link, Navigate, Route, Routes, useLocation } from "react-router-dom";
import { ComparePage } from "@/features/compare/components/ComparePage";
import { LivePage } from "@/features/live/components/LivePage";
import { NewRunPage } from "@/features/new-run/components/NewRunPage";
import { RunDetailPage } from "@/features/runs/components/RunDetailPage";
import { RunsPage } from "@/features/runs/components/RunsPage";
import { Empty, Loading } from "@/components/States";
import { Layout } from "./Layout";

/** The Workloads page carries the editor (CodeMirror, a YAML parser): its own chunk, loaded when opened. */
const WorkloadsPage = lazy(() => import("@/features/workloads/components/WorkloadsPage").then((m) => ({ default: m.WorkloadsPage })));

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<RunsPage />} />
        <Route path="runs" element={<ToRuns />} />
        <Route path="runs/new" element={<NewRunPage />} />
        <Route path="runs/:id" element={<RunDetailPage />} />
        <Route path="runs/:id/live" element={<LivePage />} />
        <Route path="compare" element={<ComparePage />} />
        <Route
          path="workloads"
          element={
            <Suspense fallback={<Loading what="Loading the workload editor" />}>
              <WorkloadsPage />
            </Suspense>
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
