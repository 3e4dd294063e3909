// A Spanload HTML report (`spanload report RUN_ID -o FILE.html`), opened from disk in Debian's
// chromium with every request that is not file:// aborted: the file must stand alone.
//
//   node e2e/report_offline.mjs FILE.html SCREENSHOT.png
//
// Prints one JSON line: the requests it blocked, and per chart (figure.chart) its id, the series
// drawn (path.series with a non-empty d and a visible length) and their labels. The test compares
// them with the run's own series.
import { chromium } from "playwright-core";

const [file, screenshot] = process.argv.slice(2);
const CHROMIUM = process.env.SPANLOAD_CHROMIUM ?? "/usr/bin/chromium";
if (!file) {
  console.error("report_offline: give the report file, e.g. node e2e/report_offline.mjs run.html shot.png");
  process.exit(2);
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const blocked = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file://")) return route.continue();
    blocked.push(url);
    return route.abort();
  });
  await page.goto("file://" + file, { waitUntil: "load" });
  const charts = await page.$$eval("figure.chart", (figures) =>
    figures.map((figure) => {
      const drawn = [...figure.querySelectorAll("path.series")].filter(
        (p) => p.getAttribute("d") && p.getTotalLength() > 0 && p.getBoundingClientRect().width > 0,
      );
      return { id: figure.id, series: drawn.length, labels: drawn.map((p) => p.dataset.label) };
    }),
  );
  const title = await page.title();
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify({ title, blocked, charts }));
} finally {
  await browser.close();
}
