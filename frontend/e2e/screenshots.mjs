// Screenshots of every page for given runs, at 1280x800 and 390 px wide, light and dark:
//   SPANLOAD_URL=http://127.0.0.1:8000 node e2e/screenshots.mjs RUN_ID [OTHER_RUN_ID ...]
// The first run is shown live and in detail; all of them are compared. Output: test-results/pages/.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const BASE = (process.env.SPANLOAD_URL ?? "").replace(/\/+$/, "");
const ids = process.argv.slice(2);
if (!BASE || ids.length === 0) {
  console.error("usage: SPANLOAD_URL=http://127.0.0.1:8000 node e2e/screenshots.mjs RUN_ID [OTHER_RUN_ID ...]");
  process.exit(2);
}
const OUT = join(dirname(fileURLToPath(import.meta.url)), "..", "test-results", "pages");
mkdirSync(OUT, { recursive: true });

const pages = [
  ["runs", "/", '[data-testid="runs-table"]'],
  ["new-run", "/runs/new", '[data-testid="preset-select"]'],
  // a definition run's first chart is its first operation's throughput; a TPC-C run's, tpmC
  ["live", `/runs/${ids[0]}/live`, '[data-testid="run-charts"] [data-testid^="chart-"][data-points]:not([data-points="0"])'],
  ["detail", `/runs/${ids[0]}`, '[data-testid="summary"], [data-testid="run-detail-page"] .muted'],
  ["compare", `/compare?ids=${ids.join(",")}`, '[data-testid="compare-summary"], [data-testid="compare-hint"]'],
];

const profile = mkdtempSync(join(tmpdir(), "spanload-shots-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.SPANLOAD_CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = browser.pages()[0] ?? (await browser.newPage());
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ]) {
      await page.setViewportSize({ width, height });
      for (const [name, path, ready] of pages) {
        await page.goto(`${BASE}${path}`);
        await page.waitForSelector(ready, { timeout: 30_000 }).catch(() => console.log(`${name}: not ready after 30 s`));
        await page.waitForTimeout(300);
        const file = join(OUT, `${name}-${width}-${scheme}.png`);
        await page.screenshot({ path: file, fullPage: width < 1000 ? false : true });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        console.log(`${file}${overflow > 1 ? `  (scrolls sideways by ${overflow} px)` : ""}`);
      }
    }
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
