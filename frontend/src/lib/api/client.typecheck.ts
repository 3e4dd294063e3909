// Checked by `tsc` (npm run typecheck, in make test), never run nor bundled: the typed client refuses
// what the API does not have. Each @ts-expect-error fails tsc the day the thing it names exists,
// or stops being an error, so these lines cannot pass by accident.
import { api } from "./client";

export const refusedByTsc = () => [
  // @ts-expect-error a route the API does not have
  api.GET("/api/run/{run_id}", { params: { path: { run_id: "x" } } }),
  // @ts-expect-error a path parameter renamed
  api.GET("/api/runs/{run_id}", { params: { path: { id: "x" } } }),
  // @ts-expect-error a query parameter the route does not take
  api.GET("/api/runs", { params: { query: { state: "running" } } }),
  // @ts-expect-error a status the API does not know
  api.GET("/api/runs", { params: { query: { status: "done" } } }),
  // @ts-expect-error a body of the wrong type
  api.POST("/api/workloads/validate", { body: { source: 1, dry_run: false } }),
];
