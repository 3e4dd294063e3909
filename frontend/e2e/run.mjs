// Browser test of the Spanload UI against a real `spanload serve` (with the local Spanner).
// Drives Debian's chromium through playwright-core. Base URL from SPANLOAD_URL.
//
//   SPANLOAD_URL=http://127.0.0.1:8000 npm run e2e
//
// It starts a run from the "light" preset (a run of workloads/change_watcher.yaml, whose Live page
// is generated from the definition: its write operation's charts, its watch's, and its knobs as
// controls), sees the live charts receive >= 5 points, changes the
// write rate in the control panel and sees the marker and the new achieved rate, pauses and
// resumes it, reloads the page
// and sees the charts rebuilt, stops the run, finds it in the runs table, runs a second preset
// after a preload (its progress bar shows on the live page while it loads),
// compares the two and checks that the deltas shown match the API's numbers. Screenshots of each
// page go to frontend/test-results/.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS = join(HERE, "..", "test-results");
const CHROMIUM = process.env.SPANLOAD_CHROMIUM ?? "/usr/bin/chromium";
const BASE = (process.env.SPANLOAD_URL ?? "").replace(/\/+$/, "");
const FIRST_PRESET = process.env.SPANLOAD_E2E_PRESET ?? "light";
const SECOND_PRESET = process.env.SPANLOAD_E2E_SECOND_PRESET ?? "medium";
/** The new write rate set in the control panel (the "light" preset writes 5 tx/s). */
const NEW_RATE = Number(process.env.SPANLOAD_E2E_NEW_RATE ?? 20);
/** The presets run workloads/change_watcher.yaml: its write operation, the knob that paces it (and
 * how a change of it is labelled on markers and events), and its watch's charts. */
const WRITE = "write";
const RATE_KNOB = "transactions_per_second";
const THROUGHPUT = `op-${WRITE}-throughput`;
const WRITE_LATENCY = `op-${WRITE}-latency`;
const WRITE_OP = `op.${WRITE}`;
const RATE_LABEL = `${RATE_KNOB}=${NEW_RATE}`;
/** Rows the second run preloads: enough for its progress bar to be seen for a few seconds. */
const PRELOAD_ROWS = Number(process.env.SPANLOAD_E2E_PRELOAD_ROWS ?? 60_000);
/** Generous bounds for waiting on a real run; they are not speed assertions. */
const STEP_TIMEOUT_MS = 90_000;

if (!BASE) {
  console.error("e2e: set SPANLOAD_URL to the address of a running `spanload serve`, e.g. http://127.0.0.1:8000");
  process.exit(2);
}

// "full" runs every step; "proxy" (the UI served by `vite preview`, proxying /api) only those that
// prove the proxied API and the Origin check from a browser: the rest is the same code either way.
const SCOPE = process.env.SPANLOAD_E2E_SCOPE ?? "full";

const steps = [];
let failed = 0;

async function step(name, fn, { proxy = false } = {}) {
  if (SCOPE === "proxy" && !proxy) {
    console.log(`skip ${name} (scope ${SCOPE})`);
    return undefined;
  }
  const started = Date.now();
  try {
    const result = await fn();
    steps.push({ name, ok: true, ms: Date.now() - started });
    console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return result;
  } catch (err) {
    failed += 1;
    steps.push({ name, ok: false, ms: Date.now() - started });
    console.log(`FAIL ${name}: ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

async function api(page, path, init) {
  return page.evaluate(
    async ({ url, init }) => {
      const response = await fetch(url, init);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    { url: `${BASE}/api${path}`, init },
  );
}

/** The number of points a chart holds (its data-points attribute). */
function chartPoints(page, id) {
  return page.getAttribute(`[data-testid="chart-${id}"]`, "data-points").then(Number);
}

async function waitForPoints(page, id, min) {
  await page.waitForFunction(
    ({ id, min }) => Number(document.querySelector(`[data-testid="chart-${id}"]`)?.getAttribute("data-points") ?? 0) >= min,
    { id, min },
    { timeout: STEP_TIMEOUT_MS },
  );
  return chartPoints(page, id);
}

async function shot(page, name) {
  await page.screenshot({ path: join(RESULTS, `${name}.png`), fullPage: true });
}

async function startRun(page, preset, name, preloadRows = 0) {
  await page.goto(`${BASE}/runs/new`);
  const select = page.getByTestId("preset-select");
  await select.waitFor({ timeout: STEP_TIMEOUT_MS });
  await select.selectOption(preset);
  await page.getByTestId("field-name").fill(name);
  if (preloadRows) {
    await page.locator('[data-testid="section-run"] > summary').click();
    await page.getByTestId("field-preload.rows").fill(String(preloadRows));
  }
  await shot(page, `new-run-${preset}`);
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/]+\/live$/, { timeout: STEP_TIMEOUT_MS });
  const id = page.url().split("/runs/")[1].split("/")[0];
  assert(id, "no run id in the live page's URL");
  return id;
}

async function stopRun(page) {
  await page.getByTestId("stop-run").click();
  await page.waitForSelector('[data-testid="live-page"][data-status="finished"]', { timeout: STEP_TIMEOUT_MS });
}

async function main() {
  mkdirSync(RESULTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), "spanload-e2e-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleErrors = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(`${msg.text()} (${msg.location().url})`);
  });
  page.on("pageerror", (err) => consoleErrors.push(String(err)));
  const stamp = new Date().toISOString().slice(11, 19);

  try {
    await step("the server is healthy", async () => {
      const health = await fetch(`${BASE}/api/health`).then((r) => r.json());
      assert(health.status === "ok", `health: ${JSON.stringify(health)}`);
    }, { proxy: true });

    await step("the runs page loads", async () => {
      await page.goto(`${BASE}/`);
      await page.getByTestId("runs-page").waitFor();
      await page.waitForSelector('[data-testid="runs-table"], [data-testid="empty"]', { timeout: STEP_TIMEOUT_MS });
      await shot(page, "runs-before");
    }, { proxy: true });

    const firstId = await step(`start a run from the "${FIRST_PRESET}" preset`, () => startRun(page, FIRST_PRESET, `e2e ${FIRST_PRESET} ${stamp}`), { proxy: true });

    await step("the live charts receive at least 5 points", async () => {
      const points = await waitForPoints(page, THROUGHPUT, 5);
      assert(points >= 5, `${THROUGHPUT} chart has ${points} points`);
      // Latency points lag throughput ones when the first intervals commit nothing (schema
      // creation on a loaded machine): wait for them too instead of reading them at once.
      const latency = await waitForPoints(page, WRITE_LATENCY, 5);
      assert(latency >= 5, `${WRITE_LATENCY} chart has ${latency} points`);
      // the watch's change-notification latency and lag, as the hand-written watcher's page drew them
      const notify = await waitForPoints(page, "notify", 5);
      assert(notify >= 5, `notify chart has ${notify} points`);
      await shot(page, "live-first");
    }, { proxy: true });

    await step("the live page shows where the time goes, per operation kind", async () => {
      await page.waitForFunction((op) => Number(document.querySelector(`[data-testid="breakdown-chart-${op}"]`)?.getAttribute("data-points") ?? 0) >= 3, WRITE_OP, {
        timeout: STEP_TIMEOUT_MS,
      });
      const chart = page.getByTestId(`breakdown-chart-${WRITE_OP}`);
      const parts = ((await chart.getAttribute("data-parts")) ?? "").split(" ");
      assert(parts.includes("queue") && parts.includes("client") && (parts.includes("server") || parts.includes("query_commit")), `parts: ${parts.join(", ")}`);
      // the parts stacked, and the client and server p50/p99 drawn over them
      const areas = await chart.locator(".recharts-area").count();
      const lines = await chart.locator(".recharts-line").count();
      assert(areas === parts.length && lines === 4, `drawn: ${areas} areas and ${lines} lines for the parts ${parts.join(", ")}`);
      await page.getByTestId("breakdown-chart-watcher.poll").waitFor({ timeout: STEP_TIMEOUT_MS });
    }, { proxy: true });

    await step(`change the write rate to ${NEW_RATE} tx/s in the control panel`, async () => {
      const input = page.getByTestId(`control-knobs.${RATE_KNOB}`);
      await input.fill(String(NEW_RATE));
      await page.getByTestId("apply-config").click();
      await page.waitForSelector('[data-testid="apply-status"][data-state="confirmed"]', { timeout: STEP_TIMEOUT_MS });
      const text = await page.getByTestId("apply-status").textContent();
      assert(text.includes(RATE_LABEL), `apply status says: ${text}`);
    }, { proxy: true });

    await step("the marker shows on every chart with data", async () => {
      await page.waitForFunction((id) => document.querySelectorAll(`[data-testid="chart-${id}"] .recharts-reference-line`).length >= 1, THROUGHPUT, {
        timeout: STEP_TIMEOUT_MS,
      });
      const charts = await page.$$eval('[data-testid="run-charts"] [data-testid^="chart-"]', (figures) =>
        figures.map((f) => ({
          id: f.getAttribute("data-testid"),
          points: Number(f.getAttribute("data-points")),
          markers: Number(f.getAttribute("data-markers")),
          drawn: f.querySelectorAll(".recharts-reference-line").length,
          label: [...f.querySelectorAll(".recharts-reference-line text, .recharts-label")].map((t) => t.textContent).join(" "),
        })),
      );
      const withData = charts.filter((c) => c.points > 0);
      assert(withData.length >= 3, `only ${withData.length} charts have data`);
      for (const c of withData) {
        assert(c.markers >= 1 && c.drawn >= 1, `${c.id} draws no marker (${JSON.stringify(c)})`);
        assert(c.label.includes(RATE_LABEL), `${c.id} marker label is "${c.label}"`);
      }
    });

    await step(`the achieved rate climbs to the new target`, async () => {
      // the write operation's achieved rate in the operations table
      await page.waitForFunction(
        ({ rate, id, op }) => {
          const target = document.querySelector(`[data-testid="chart-${id}"]`);
          const achieved = Number(document.querySelector(`[data-testid="op-ps-${op}"]`)?.textContent ?? 0);
          return target && achieved >= 0.5 * rate;
        },
        { rate: NEW_RATE, id: THROUGHPUT, op: WRITE },
        { timeout: STEP_TIMEOUT_MS },
      );
      // Over the intervals since the change (3 at least), the run achieved the new rate on average.
      let after = [];
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      while (after.length < 3 && Date.now() < deadline) {
        const samples = await api(page, `/runs/${firstId}/samples?max_points=10000`);
        after = samples.body.data.filter((s) => s.gauges[`${WRITE_OP}.target_ps`] === NEW_RATE).slice(1);
        if (after.length < 3) await page.waitForTimeout(1000);
      }
      assert(after.length >= 3, `only ${after.length} full intervals at the new rate`);
      const mean = after.reduce((sum, s) => sum + s.gauges[`${WRITE_OP}.ps`], 0) / after.length;
      // Loose on purpose (the machine may be busy): at least half the new rate, which is twice
      // the light preset's 5 tx/s.
      assert(mean >= 0.5 * NEW_RATE, `achieved ${mean.toFixed(1)} tx/s on average after the change to ${NEW_RATE}`);
      console.log(`     achieved ${mean.toFixed(1)} tx/s on average over ${after.length} intervals after the change`);
      await shot(page, "live");
    });

    await step("pause and resume the run", async () => {
      await page.getByTestId("pause-run").click();
      await page.waitForSelector('[data-testid="live-page"][data-status="paused"]', { timeout: STEP_TIMEOUT_MS });
      await page.getByTestId("resume-run").click();
      await page.waitForSelector('[data-testid="live-page"][data-status="running"]', { timeout: STEP_TIMEOUT_MS });
      const events = (await api(page, `/runs/${firstId}`)).body;
      assert(events.status === "running", `status after resume: ${events.status}`);
    });

    await step("a reload rebuilds the charts from the snapshot", async () => {
      const before = await chartPoints(page, THROUGHPUT);
      await page.reload();
      const after = await waitForPoints(page, THROUGHPUT, before);
      assert(after >= before, `${after} points after reload, ${before} before`);
      await page.waitForFunction((id) => Number(document.querySelector(`[data-testid="chart-${id}"]`)?.getAttribute("data-markers") ?? 0) >= 1, THROUGHPUT, {
        timeout: STEP_TIMEOUT_MS,
      });
    });

    await step("stop the run", async () => {
      await stopRun(page);
      await page.getByTestId("run-ended-banner").waitFor();
    }, { proxy: true });

    await step("find it in the runs table", async () => {
      await page.goto(`${BASE}/`);
      const row = page.locator(`[data-testid="run-row"][data-run-id="${firstId}"]`);
      await row.waitFor({ timeout: STEP_TIMEOUT_MS });
      const status = await row.getByTestId("status-badge").getAttribute("data-status");
      assert(status === "finished", `status in the table: ${status}`);
      await shot(page, "runs");
    });

    await step("the run detail page shows charts, summary and events", async () => {
      await page.goto(`${BASE}/runs/${firstId}`);
      await page.getByTestId("summary").waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.getByTestId("event-list").waitFor({ timeout: STEP_TIMEOUT_MS });
      const events = await page.getByTestId("event").allTextContents();
      assert(events.some((e) => e.includes(RATE_LABEL)), `events: ${events.join(" | ")}`);
      await waitForPoints(page, THROUGHPUT, 5);
      await waitForPoints(page, "notify", 5);
      await shot(page, "run-detail");
    });

    await step("the run detail page shows where the time goes, as the summary says", async () => {
      const summary = (await api(page, `/runs/${firstId}`)).body.summary;
      const b = summary.breakdown[WRITE_OP];
      assert(b && b.count === summary.latency[WRITE_OP].count, `breakdown ${JSON.stringify(b)} vs ${summary.latency[WRITE_OP].count} transactions`);
      const total = b.parts.reduce((sum, p) => sum + p.ms, 0);
      assert(Math.abs(total - b.round_trip_ms) <= 1e-6 * b.round_trip_ms, `parts add up to ${total} ms, the round trip is ${b.round_trip_ms} ms`);
      await page.getByTestId(`breakdown-chart-${WRITE_OP}`).waitFor({ timeout: STEP_TIMEOUT_MS });
      const bar = page.getByTestId(`breakdown-bar-${WRITE_OP}`);
      const shown = await bar.locator(".breakdown-segment").evaluateAll((els) => els.map((e) => [e.getAttribute("data-part"), Number(e.getAttribute("data-pct"))]));
      const expected = b.parts.filter((p) => p.ms > 0).map((p) => [p.part, (100 * p.ms) / total]);
      assert(shown.length === expected.length, `bar segments ${JSON.stringify(shown)}, summary parts ${JSON.stringify(expected)}`);
      for (const [i, [part, pct]] of shown.entries()) {
        assert(part === expected[i][0] && Math.abs(pct - expected[i][1]) <= 0.051, `segment ${i}: ${part} ${pct}% shown, ${expected[i][0]} ${expected[i][1]}% in the summary`);
      }
      await page.getByTestId(`breakdown-latency-${WRITE_OP}`).waitFor();
      await shot(page, "run-detail-breakdown");
    });

    await step("rename the run and save its notes and tags", async () => {
      const renamed = `e2e renamed ${stamp}`;
      await page.getByTestId("run-name-input").fill(renamed);
      await page.getByTestId("run-tags-input").fill("e2e, browser, e2e");
      await page.getByTestId("run-notes-input").fill("saved from the browser");
      await page.getByTestId("notes-form").getByRole("button", { name: "Save" }).click();
      await page.getByText("Saved.").waitFor({ timeout: STEP_TIMEOUT_MS });
      const stored = (await api(page, `/runs/${firstId}`)).body;
      assert(
        stored.name === renamed && stored.notes === "saved from the browser" && JSON.stringify(stored.tags) === '["e2e","browser"]',
        `stored after save: ${JSON.stringify({ name: stored.name, notes: stored.notes, tags: stored.tags })}`,
      );
      const heading = await page.locator("h1").first().textContent();
      assert(heading.startsWith(renamed), `heading after rename: ${heading}`);
    });

    const secondId = await step(`run a second preset ("${SECOND_PRESET}") after a preload of ${PRELOAD_ROWS} rows with its progress bar`, async () => {
      const id = await startRun(page, SECOND_PRESET, `e2e ${SECOND_PRESET} ${stamp}`, PRELOAD_ROWS);
      // The bar shows while the run is preloading, and moves: some rows done, percent and rows/s in words.
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="preload-progress"]')?.getAttribute("data-percent") ?? 0) > 0, null, {
        timeout: STEP_TIMEOUT_MS,
      });
      const text = await page.getByTestId("preload-progress-text").textContent();
      assert(new RegExp(`^[0-9.]+% · [0-9,]+ / ${PRELOAD_ROWS.toLocaleString("en-US")} rows · [0-9,]+ rows/s · ETA `).test(text), `progress text: ${text}`);
      await shot(page, "live-preloading");
      await page.waitForSelector('[data-testid="live-page"][data-status="running"]', { timeout: STEP_TIMEOUT_MS });
      assert((await page.getByTestId("preload-progress").count()) === 0, "the progress bar stays after the load phase");
      const run = (await api(page, `/runs/${id}`)).body;
      // the form's preload field sets the definition's knob that its load reads
      assert(run.config.knobs.preload_rows === PRELOAD_ROWS, `the run's knobs: ${JSON.stringify(run.config.knobs)}`);
      await waitForPoints(page, THROUGHPUT, 5);
      await stopRun(page);
      return id;
    });

    await step("compare the two: the deltas shown match the API's", async () => {
      // A run's summary is written just after it stops; until then the API recomputes it from the
      // samples. Wait until the comparison is settled, so that the page and this test see the same.
      let settled = null;
      for (let i = 0; i < 30 && !settled; i++) {
        const a = await api(page, `/compare?ids=${firstId},${secondId}`);
        await page.waitForTimeout(1000);
        const b = await api(page, `/compare?ids=${firstId},${secondId}`);
        if (a.status === 200 && JSON.stringify(a.body.metrics) === JSON.stringify(b.body.metrics)) settled = b;
      }
      assert(settled, "the comparison kept changing for 30 s");
      await page.goto(`${BASE}/`);
      await page.locator(`[data-testid="run-row"][data-run-id="${secondId}"]`).waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator(`[data-testid="run-row"][data-run-id="${firstId}"] [data-testid="run-select"]`).check();
      await page.locator(`[data-testid="run-row"][data-run-id="${secondId}"] [data-testid="run-select"]`).check();
      await page.getByTestId("compare-selected").click();
      await page.waitForURL(new RegExp(`/compare\\?ids=${firstId}(,|%2C)${secondId}$`));
      await page.getByTestId("compare-summary").waitFor({ timeout: STEP_TIMEOUT_MS });
      const showAll = page.getByTestId("show-all-metrics");
      if (await showAll.count()) await showAll.click();
      const compare = await api(page, `/compare?ids=${firstId},${secondId}`);
      assert(compare.status === 200, `GET /api/compare: ${compare.status}`);
      assert(JSON.stringify(compare.body.metrics) === JSON.stringify(settled.body.metrics), "the comparison changed while the page loaded");
      let checked = 0;
      for (const metric of compare.body.metrics) {
        const cell = page.getByTestId(`cell-${metric.metric}-1`);
        const shownDelta = await cell.getAttribute("data-delta");
        const apiDelta = metric.delta[1];
        assert(apiDelta === null ? shownDelta === "" : Number(shownDelta) === apiDelta, `${metric.metric}: shown delta ${shownDelta}, API ${apiDelta}`);
        if (apiDelta !== null) {
          const text = await cell.locator(".cell-delta").textContent();
          const percent = metric.percent_change[1];
          const significant = metric.significant[1];
          const scale = metric.metric.endsWith("latency_s") ? 1000 : 1; // server latencies are shown in ms
          if (significant === null) {
            // not judged against the noise (totals): the delta and its percent, as before
            const expected = `${apiDelta > 0 ? "+" : ""}${(apiDelta * scale).toFixed(2)}`;
            assert(text.startsWith(expected), `${metric.metric}: shows "${text}", API delta ${apiDelta}`);
            if (percent !== null) assert(text.includes(`${percent > 0 ? "+" : ""}${percent.toFixed(1)}%`), `${metric.metric}: shows "${text}", API percent ${percent}`);
          } else {
            // the change with its interval, and "not significant" exactly when the API says so
            const change = percent !== null && metric.values[0] ? `${percent > 0 ? "+" : ""}${percent.toFixed(1)}%` : `${apiDelta > 0 ? "+" : ""}${(apiDelta * scale).toFixed(2)}`;
            assert(text.startsWith(`${change} ± `), `${metric.metric}: shows "${text}", API change ${change}`);
            assert(text.endsWith(", not significant") === !significant, `${metric.metric}: shows "${text}", API significant ${significant}`);
          }
          checked += 1;
        }
      }
      assert(checked >= 5, `only ${checked} deltas were checked`);
      // only a delta beyond the noise is coloured; one inside it is marked noise
      // the write operation's achieved rate, and the updater's figure a built-in definition's run carries too
      for (const name of [`rates.${WRITE_OP}.ps`, "rates.updater.tps"]) {
        const tps = compare.body.metrics.find((m) => m.metric === name);
        assert(tps && tps.delta[1] !== null && tps.significant[1] !== null, `${name} in the comparison: ${JSON.stringify(tps)}`);
        const tone = await page.getByTestId(`cell-${name}-1`).getAttribute("data-tone");
        const expected = tps.significant[1] ? (tps.delta[1] > 0 ? "better" : "worse") : "noise";
        assert(tone === expected, `${name} delta ${tps.delta[1]} (significant ${tps.significant[1]}) is coloured ${tone}`);
      }
      const diff = await page.getByTestId("config-diff-row").allTextContents();
      assert(diff.some((d) => d.includes(`knobs.${RATE_KNOB}`)), `config diff: ${diff.join(" | ")}`);
      await page.getByTestId("compare-charts").waitFor();
      for (const i of [0, 1]) {
        const segments = await page.getByTestId(`compare-breakdown-bar-${WRITE_OP}-${i}`).locator(".breakdown-segment").count();
        assert(segments >= 2, `run ${i + 1}'s breakdown bar of ${WRITE_OP} has ${segments} parts`);
      }
      await shot(page, "compare");
      console.log(`     ${checked} deltas match the API`);
    });

    await step("a TPC-C run: its live and detail pages show where every transaction type's time goes", async () => {
      // tpcc-1w, its data scaled down so that the load takes seconds (the transactions are the same); no
      // warm-up: the run is stopped seconds in, and a warm-up interval is left out of the summary's breakdown
      const created = await api(page, "/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ preset: "tpcc-1w", name: `e2e tpcc ${stamp}`, overrides: { warmup_s: 0, tpcc: { items: 2000, customers_per_district: 30 } } }),
      });
      assert(created.status === 201 || created.status === 200, `POST /api/runs: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.id;
      await page.goto(`${BASE}/runs/${id}/live`);
      const types = ["tpcc.delivery", "tpcc.new_order", "tpcc.order_status", "tpcc.payment", "tpcc.stock_level"];
      await page.waitForFunction(
        (types) => types.every((t) => Number(document.querySelector(`[data-testid="breakdown-chart-${t}"]`)?.getAttribute("data-points") ?? 0) >= 1),
        types,
        { timeout: STEP_TIMEOUT_MS },
      );
      const live = await page.$$eval('[data-testid="breakdown-charts"] figure', (figures) => figures.map((f) => f.getAttribute("data-op")));
      for (const t of types) assert(live.includes(t), `live breakdown charts: ${live.join(", ")}`);
      await shot(page, "tpcc-live");
      await stopRun(page);
      await page.goto(`${BASE}/runs/${id}`);
      await page.getByTestId("breakdown-section").waitFor({ timeout: STEP_TIMEOUT_MS });
      const summary = (await api(page, `/runs/${id}`)).body.summary;
      for (const t of types) {
        const b = summary.breakdown[t];
        assert(b && b.count === summary.latency[t].count, `${t}: breakdown ${JSON.stringify(b)}, ${summary.latency[t]?.count} in its histogram`);
        const segments = await page.getByTestId(`breakdown-bar-${t}`).locator(".breakdown-segment").count();
        assert(segments >= 2, `${t}: ${segments} parts in its bar`);
      }
      await shot(page, "tpcc-detail");
      await page.goto(`${BASE}/compare?ids=${firstId},${secondId}`); // where the next step starts
    });

    await step("the pages are usable 390 px wide", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      await page.reload();
      await page.getByTestId("compare-summary").waitFor({ timeout: STEP_TIMEOUT_MS });
      assert((await overflow()) <= 1, `the compare page scrolls sideways by ${await overflow()} px`);
      await shot(page, "compare-phone");
      await page.goto(`${BASE}/runs/${firstId}`);
      await page.getByTestId("summary").waitFor({ timeout: STEP_TIMEOUT_MS });
      assert((await overflow()) <= 1, `the run detail page scrolls sideways by ${await overflow()} px`);
      await shot(page, "run-detail-phone");
      await page.goto(`${BASE}/runs/${firstId}/live`);
      await waitForPoints(page, THROUGHPUT, 5);
      assert((await overflow()) <= 1, `the live page scrolls sideways by ${await overflow()} px`);
      await shot(page, "live-phone");
    });

    await step("no errors in the browser console", async () => {
      // A socket refused while the page navigates away is not an app error.
      const real = consoleErrors.filter((e) => !/WebSocket is closed before the connection is established/.test(e));
      assert(real.length === 0, real.join("\n"));
    }, { proxy: true });
  } catch {
    // The failing step was reported; take a picture of where it stopped.
    await shot(page, "failure").catch(() => undefined);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  const passed = steps.filter((s) => s.ok).length;
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  console.log(`e2e: ${steps.filter((s) => s.ok).length} passed, ${failed + 1} failed`);
  process.exit(1);
});
