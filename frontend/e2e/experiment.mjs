// The hint experiment from the Experiments page (issue 23's proof), in Debian's chromium against a
// real `spanload serve`: its variants run back to back on one database, their progress shows while
// they run, and it ends on compare, whose first rows show the hint's effect (the poll at the
// server) coloured as significant, with achieved tx/s not coloured. Screenshots at 1280 and 390 px
// go to frontend/test-results/experiments/.
//
//   SPANLOAD_URL=http://127.0.0.1:8000 npm run e2e:experiment
//
// Test-sized: each variant runs SPANLOAD_E2E_EXP_SECONDS (15) on SPANLOAD_E2E_EXP_ROWS (20,000)
// rows, not the report's 60 s on 100,000: a full scan of 20,000 rows is already many times the
// hinted poll, which is the effect the rows check.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { check, stepper } from "./steps.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS = join(HERE, "..", "test-results", "experiments");
const CHROMIUM = process.env.SPANLOAD_CHROMIUM ?? "/usr/bin/chromium";
const BASE = (process.env.SPANLOAD_URL ?? "").replace(/\/+$/, "");
const SECONDS = Number(process.env.SPANLOAD_E2E_EXP_SECONDS ?? 15);
const ROWS = Number(process.env.SPANLOAD_E2E_EXP_ROWS ?? 20_000);
/** Three variants, their preload and startup: a generous bound, not a speed assertion. */
const EXPERIMENT_TIMEOUT_MS = 3 * (SECONDS + 90) * 1000;

if (!BASE) {
  console.error("e2e: set SPANLOAD_URL to the address of a running `spanload serve`, e.g. http://127.0.0.1:8000");
  process.exit(2);
}

async function shot(page, name) {
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, `${name}.png`), fullPage: false });
}

const { step, failures } = stepper({ rethrow: true });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(60_000);

  await step("the Experiments page lists the hint experiment", async () => {
    await page.goto(`${BASE}/experiments`);
    await page.getByTestId("exp-hint").waitFor();
    const report = await page.getByTestId("exp-hint-report").textContent();
    check(report.includes("49x"), `the hint experiment's report says: ${report}`);
    await shot(page, "experiments-1280");
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, "experiments-390");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await step(`run its three variants for ${SECONDS} s each on ${ROWS} rows, their progress shown`, async () => {
    await page.getByTestId("exp-hint-duration").fill(String(SECONDS));
    await page.getByTestId("exp-hint-rows").fill(String(ROWS));
    await page.getByTestId("exp-hint-run").click();
    await page.waitForSelector('[data-testid="exp-hint-progress"] li[data-status="running"]', { timeout: EXPERIMENT_TIMEOUT_MS });
    await shot(page, "experiment-progress-1280");
    await page.waitForURL(/\/compare\?ids=/, { timeout: EXPERIMENT_TIMEOUT_MS });
    const ids = new URL(page.url()).searchParams.get("ids").split(",");
    check(ids.length === 3, `compare opened with ${ids.length} runs: ${ids.join(",")}`);
  });

  await step("compare leads with the poll at the server, the hint's effect significant, tx/s not coloured", async () => {
    await page.getByTestId("compare-summary").waitFor();
    const rows = await page.$$eval('[data-testid="compare-metric"]', (trs) => trs.map((tr) => tr.getAttribute("data-metric")));
    const poll = rows.findIndex((m) => m.includes("poll_server") || m.includes("server.poll"));
    check(poll >= 0 && poll < 3, `the poll at the server is not among the first rows: ${rows.slice(0, 6).join(", ")}`);
    const pollMetric = rows[poll];
    // the API's figures for the report (and for a failure): each variant's value, and the change's interval
    const ids = new URL(page.url()).searchParams.get("ids");
    const compare = await fetch(`${BASE}/api/compare?ids=${ids}`).then((r) => r.json());
    const figures = (name) => {
      const m = compare.metrics.find((x) => x.metric === name);
      if (!m) return `${name}: not in the comparison`;
      const v = m.values.map((x, i) => `${x === null ? "n/a" : x.toFixed(2)}${i && m.uncertainty?.[i] != null ? ` ±${m.uncertainty[i].toFixed(2)}` : ""}`);
      return `${name} ${v.join(" | ")} (significant ${JSON.stringify(m.significant)})`;
    };
    const writeRate = "rates.op.write.ps";
    console.log(`     ${figures(pollMetric)}`);
    console.log(`     ${figures(writeRate)}`);
    // variant 2 is medium-no-hint: its poll at the server is slower than the hinted baseline's, beyond the noise
    const tone = await page.getByTestId(`cell-${pollMetric}-1`).getAttribute("data-tone");
    check(tone === "worse", `${pollMetric} without the hint is coloured ${tone}: ${figures(pollMetric)}`);
    // achieved tx/s among the first rows (the updater's figure a built-in definition's run carries),
    // and, among all the metrics, the write operation's own
    const tps = await page.getByTestId("cell-rates.updater.tps-1").getAttribute("data-tone");
    check(tps === "noise" || tps === "neutral", `achieved tx/s without the hint is coloured ${tps}: ${figures("rates.updater.tps")}`);
    await shot(page, "compare-1280");
    await page.getByTestId("show-all-metrics").click();
    const ops = await page.getByTestId(`cell-${writeRate}-1`).getAttribute("data-tone");
    check(ops === "noise" || ops === "neutral", `${writeRate} without the hint is coloured ${ops}: ${figures(writeRate)}`);
  });

  await step("at 390 px compare's columns fit", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId("compare-summary").scrollIntoViewIfNeeded();
    const fit = await page.evaluate(() => {
      const table = document.querySelector('[data-testid="compare-summary"]');
      const page = document.documentElement;
      return { table: table.getBoundingClientRect().right, window: window.innerWidth, page: page.scrollWidth };
    });
    check(fit.page <= fit.window + 1 && fit.table <= fit.window + 1, `compare overflows at 390 px: ${JSON.stringify(fit)}`);
    await shot(page, "compare-390");
  });
} finally {
  await browser.close();
}
process.exit(failures() ? 1 : 0);
