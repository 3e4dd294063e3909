// The shell: header with navigation, the server-connection banner, and the page.
import { useLayoutEffect } from "react";
import { NavLink, Outlet, useLocation, useNavigationType } from "react-router-dom";
import { ConnectionBanner, LocalSpannerState } from "./ConnectionBanner";
import { useHealth } from "./useHealth";
import { TokenBanner } from "./TokenBanner";

/** A new page opens at its top (Start on the New run page went to the live page scrolled down, its
 * title and Pause/Stop out of view); back and forward keep the browser's own restoration. */
function useTopOnNewPage() {
  const { pathname } = useLocation();
  const how = useNavigationType();
  useLayoutEffect(() => {
    if (how !== "POP") window.scrollTo(0, 0);
  }, [pathname, how]);
}

export function Layout() {
  useTopOnNewPage();
  const health = useHealth();
  return (
    <div className="app">
      <header className="app-header">
        <NavLink to="/" className="brand" end>
          Spanload
        </NavLink>
        <nav className="nav">
          <NavLink to="/" end data-testid="nav-runs">
            Runs
          </NavLink>
          <NavLink to="/runs/new" data-testid="nav-new-run">
            New run
          </NavLink>
          <NavLink to="/compare" data-testid="nav-compare">
            Compare
          </NavLink>
          <NavLink to="/workloads" data-testid="nav-workloads">
            Workloads
          </NavLink>
          <NavLink to="/experiments" data-testid="nav-experiments">
            Experiments
          </NavLink>
        </nav>
        <LocalSpannerState health={health.health} />
      </header>
      <ConnectionBanner {...health} />
      <TokenBanner />
      <main className="app-main">
        <Outlet />
      </main>
    </div>
  );
}
