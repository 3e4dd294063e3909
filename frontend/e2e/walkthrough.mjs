// The README's "first ten minutes" screenshots, taken from a real `spanload serve`: start a run,
// change its write rate live, compare it with the run before, export it. Saved to
// docs/walkthrough/ (1100x700, the page's top). Not a test: `make test` does not run it.
//
//   SPANLOAD_URL=http://127.0.0.1:8000 node e2e/walkthrough.mjs
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { check, stepper } from "./steps.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, "..", "..", "docs", "walkthrough");
const BASE = (process.env.SPANLOAD_URL ?? "").replace(/\/+$/, "");
const WAIT_MS = 90_000;
if (!BASE) {
  console.error("set SPANLOAD_URL to a running `spanload serve`");
  process.exit(2);
}
mkdirSync(OUT, { recursive: true });
const shot = (page, name) => page.screenshot({ path: join(OUT, `${name}.png`) });
// the light preset runs workloads/change_watcher.yaml: its write operation's chart, its rate knob
const THROUGHPUT = '[data-testid="chart-op-write-throughput"]';

const { step, failures } = stepper({ rethrow: true });
const browser = await chromium.launch({ executablePath: process.env.SPANLOAD_CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  page.setDefaultTimeout(WAIT_MS);
  const runs = [];
  for (const [i, preset] of ["light", "light"].entries()) {
    await step(`start a "${preset}" run`, async () => {
      await page.goto(`${BASE}/runs/new`);
      await page.getByTestId("preset-select").selectOption(preset);
      await page.getByTestId("field-name").fill(`walkthrough ${i + 1}`);
      await page.locator('[data-testid="section-run"] > summary').click();
      await page.getByTestId("field-duration_s").fill("40");
      if (i === 0) await shot(page, "1-start");
      await page.getByTestId("start-run").click();
      await page.waitForURL(/\/runs\/[^/]+\/live$/);
      runs.push(page.url().split("/runs/")[1].split("/")[0]);
    });
    await step("change its write rate live", async () => {
      await page.waitForFunction((sel) => Number(document.querySelector(sel)?.getAttribute("data-points") ?? 0) >= 8, THROUGHPUT);
      if (i === 0) {
        await page.getByTestId("control-knobs.transactions_per_second").fill("15");
        await page.getByTestId("apply-config").click();
        await page.waitForSelector('[data-testid="apply-status"][data-state="confirmed"]');
        await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .recharts-reference-line`).length >= 1, THROUGHPUT);
        await page.waitForTimeout(8000); // a few intervals at the new rate, for the picture
        await shot(page, "2-change-live");
      }
      await page.waitForSelector('[data-testid="live-page"][data-status="finished"]', { timeout: 3 * WAIT_MS });
    });
  }
  await step("compare the two", async () => {
    await page.goto(`${BASE}/compare?ids=${runs.join(",")}`);
    await page.getByTestId("compare-summary").waitFor();
    await shot(page, "3-compare");
  });
  await step("export the run", async () => {
    await page.goto(`${BASE}/runs/${runs[0]}`);
    await page.getByTestId("export-json").waitFor();
    const href = await page.getByTestId("export-json").getAttribute("href");
    check(href.includes("/export?format=json"), `export link: ${href}`);
    await page.getByTestId("export-json").scrollIntoViewIfNeeded();
    await shot(page, "4-export");
  });
} finally {
  await browser.close();
}
process.exit(failures() ? 1 : 0);
