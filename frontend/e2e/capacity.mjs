// Browser test of the capacity search against a real `spanload serve` (with the local Spanner), in
// Debian's chromium through playwright-core. Base URL from SPANLOAD_URL.
//
//   SPANLOAD_URL=http://127.0.0.1:8000 npm run e2e:capacity
//
// It sets a capacity search on the New run page's load-shape section and starts it; starts a second
// search through the API against a database with a synthetic knee (the local Spanner delays each
// commit that finds more than 15 in the last second by 100 ms), watches that run's live page draw
// the curve point by point and mark the knee at 12/s, and compares the two runs' curves. Screenshots
// at 1280 and 390 px go to frontend/test-results/capacity/.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { check, finish, stepper } from "./steps.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS = join(HERE, "..", "test-results", "capacity");
const CHROMIUM = process.env.SPANLOAD_CHROMIUM ?? "/usr/bin/chromium";
const BASE = (process.env.SPANLOAD_URL ?? "").replace(/\/+$/, "");
/** Generous bounds for waiting on a real run; they are not speed assertions. */
const STEP_TIMEOUT_MS = 90_000;
const KNEE = 12; // 4, 12, 20...: at 12/s few commits find more than 15 in the last second, at 20/s most do

if (!BASE) {
  console.error("e2e: set SPANLOAD_URL to the address of a running `spanload serve`, e.g. http://127.0.0.1:8000");
  process.exit(2);
}

const { step, failures } = stepper({ rethrow: true });

async function shoot(page, name) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(RESULTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

const fresh = () => `e2e-capacity-${Math.random().toString(16).slice(2, 10)}`;

mkdirSync(RESULTS, { recursive: true });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
page.setDefaultTimeout(STEP_TIMEOUT_MS);
const pageErrors = [];
page.on("pageerror", (err) => pageErrors.push(err.message));
const ids = [];

try {
  await step("set a capacity search on the New run page and start it", async () => {
    await page.goto(`${BASE}/runs/new`);
    await page.waitForSelector('[data-testid="section-load-shape"]');
    await page.click('[data-testid="section-load-shape"] > summary');
    await page.click('[data-testid="shape-capacity"]');
    const fill = async (id, value) => page.fill(`[data-testid="capacity-${id}"]`, String(value));
    await fill("start_rate", 5);
    await fill("step", 5);
    await fill("max_rate", 10);
    await fill("min_step_s", 1);
    await fill("max_step_s", 2);
    await page.selectOption('[data-testid="capacity-percentile"]', "p50");
    await page.fill('[data-testid="abort-on"]', "errors_ps>100 for 10s");
    await shoot(page, "new-run-capacity");
    await page.click('[data-testid="start-run"]');
    await page.waitForURL(/\/runs\/[^/]+\/live$/);
    const id = page.url().split("/").at(-2);
    ids.push(id);
    const run = await page.evaluate(async (runId) => (await fetch(`/api/runs/${runId}`)).json(), id);
    const c = run.config.capacity;
    check(c && c.start_rate === 5 && c.step === 5 && c.max_rate === 10 && c.percentile === "p50", `the run's capacity is ${JSON.stringify(c)}`);
    check(JSON.stringify(run.config.abort_on) === JSON.stringify(["errors_ps>100 for 10s"]), `abort_on ${JSON.stringify(run.config.abort_on)}`);
  });

  await step("start a search against a synthetic knee and see its curve draw point by point", async () => {
    const config = {
      name: "capacity against a knee of 15/s",
      report_interval_s: 0.5,
      target: { kind: "local", database: fresh(), commit_knee: { rate: 15, delay_ms: 100 } },
      updater: { transactions_per_second: 1, mutations_per_transaction: 1, parallelism: 16 },
      watcher: { enabled: false },
      capacity: { start_rate: 4, step: 8, max_rate: 36, min_step_s: 4, max_step_s: 6, percentile: "p50", latency_ms: 50, achieved_pct: null },
    };
    const run = await page.evaluate(async (body) => {
      const r = await fetch("/api/runs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ config: body }) });
      return { status: r.status, body: await r.json() };
    }, config);
    check(run.status === 201, `POST /api/runs answered ${run.status}: ${JSON.stringify(run.body)}`);
    ids.push(run.body.id);
    await page.goto(`${BASE}/runs/${run.body.id}/live`);
    await page.waitForSelector('[data-testid="capacity-live"]');
    const seen = [];
    for (let i = 0; i < 600; i++) {
      const figures = await page.evaluate(() => {
        const chart = document.querySelector('[data-testid="capacity-live"] [data-testid="chart-capacity"]');
        const status = document.querySelector('[data-testid="live-page"]')?.getAttribute("data-status");
        const judged = Number(document.querySelector('[data-testid="capacity-live"]')?.getAttribute("data-judged") ?? 0);
        return { points: chart ? Number(chart.getAttribute("data-points")) : 0, knee: chart?.getAttribute("data-knee") ?? "", status, judged };
      });
      if (seen.length === 0 || seen.at(-1).points !== figures.points) seen.push(figures);
      // the end: the run finished and the curve fetched after its last judged step is drawn (the
      // status and the last step's event reach the page together; its curve comes a fetch later)
      if (figures.status === "finished" && figures.knee !== "" && figures.judged > 0 && figures.points === figures.judged) break;
      await page.waitForTimeout(200);
    }
    const counts = seen.map((s) => s.points).filter((n) => n > 0);
    // point by point: a point drawn while the search still ran, and more after it, never fewer. Not
    // every count: on a loaded machine two points can reach the page in one refresh (1, 3 in CI).
    const whileRunning = seen.some((s) => s.points > 0 && s.status === "running");
    check(
      whileRunning && counts.length >= 2 && counts.at(-1) >= 3 && counts.every((n, i) => i === 0 || n > counts[i - 1]),
      `the curve's points as they came: ${counts.join(", ")}${whileRunning ? "" : " (none while the search ran)"}; last seen ${JSON.stringify(seen.at(-1))}`,
    );
    check(seen.at(-1).knee === String(KNEE), `the knee marked at ${seen.at(-1).knee}, want ${KNEE}`);
    check((await page.locator('[data-testid="capacity-live"] svg text', { hasText: "knee" }).count()) === 1, "no knee label on the chart");
    await shoot(page, "live-capacity-curve");
  });

  await step("compare the two runs' curves", async () => {
    const first = ids[0];
    for (let i = 0; i < 300; i++) {
      const status = await page.evaluate(async (runId) => (await (await fetch(`/api/runs/${runId}`)).json()).status, first);
      if (status === "finished") break;
      await page.waitForTimeout(200);
    }
    await page.goto(`${BASE}/compare?ids=${ids.join(",")}`);
    await page.waitForSelector('[data-testid="compare-capacity"]');
    const knees = await page.getByTestId("compare-knees").textContent();
    check(knees.includes(`${KNEE}/s`) && knees.includes("10/s"), `compare's knees: ${knees}`);
    const kneeDots = await page.locator('[data-testid="compare-capacity"] svg text', { hasText: "knee" }).count();
    check(kneeDots === 2, `${kneeDots} knee marks on compare's chart, want 2`);
    await shoot(page, "compare-capacity");
  });
} catch {
  // reported by step()
} finally {
  await browser.close();
}

finish(failures(), pageErrors);
