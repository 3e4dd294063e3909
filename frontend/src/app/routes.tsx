// Every page of the app, and the shell around them.
import { Link, Navigate, Route, Routes, useLocation } from "react-router-dom";
import { ComparePage } from "@/features/compare/components/ComparePage";
import { LivePage } from "@/features/live/components/LivePage";
import { NewRunPage } from "@/features/new-run/components/NewRunPage";
import { RunDetailPage } from "@/features/runs/components/RunDetailPage";
import { RunsPage } from "@/features/runs/components/RunsPage";
import { Empty } from "@/components/States";
import { Layout } from "./Layout";

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
