// The shell: header with navigation, the server-connection banner, and the page.
import { NavLink, Outlet } from "react-router-dom";
import { ConnectionBanner, LocalSpannerState } from "./ConnectionBanner";
import { useHealth } from "./useHealth";
import { TokenBanner } from "./TokenBanner";

export function Layout() {
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
