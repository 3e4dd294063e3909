// A new user's first run, in Debian's chromium (playwright-core), against a real `spanload serve`:
// the papercuts of issue 23. Base URL from SPANLOAD_URL; screenshots (1280 and 390 px wide) go to
// frontend/test-results/first-run/.
//
//   SPANLOAD_URL=http://127.0.0.1:8000 node e2e/first_run.mjs
//
// - /docs shows the API's operations with every request off the server blocked (no CDN);
// - /runs/unknown answers 404 with a sentence, the page and the live socket alike;
// - after Start the live page opens at its top, its charts led by the change watcher's own (the
//   light preset runs workloads/change_watcher.yaml: its write operation's, then its watch's);
// - at 1280x900 the live controls never hide Apply or its confirmation, nor a knob under them;
// - at 390 px the controls come before the charts;
// - a failed run's detail page says it failed, with the reason; its live page draws no empty charts;
// - "1 process"; the definition's watchers knob, which has no unit, "1".
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { check, stepper } from "./steps.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS = join(HERE, "..", "test-results", "first-run");
const CHROMIUM = process.env.SPANLOAD_CHROMIUM ?? "/usr/bin/chromium";
const BASE = (process.env.SPANLOAD_URL ?? "").replace(/\/+$/, "");
/** Generous bounds for waiting on a real run; they are not speed assertions. */
const STEP_TIMEOUT_MS = 90_000;
const NOT_FOUND = "There is no run 'unknown' on this server: it was never started here, or it was deleted.";

if (!BASE) {
  console.error("first_run: set SPANLOAD_URL to the address of a running `spanload serve`, e.g. http://127.0.0.1:8000");
  process.exit(2);
}

const { step, failures } = stepper();
const assert = check;

async function shot(page, name) {
  await page.screenshot({ path: join(RESULTS, `${name}.png`), fullPage: false });
}

async function api(path, init) {
  const response = await fetch(`${BASE}/api${path}`, { headers: { "content-type": "application/json" }, ...init });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** The element's box and the window's, and whether the box lies wholly inside both the window and `inside`. */
async function boxIn(page, testId, inside) {
  return page.evaluate(
    ({ testId, inside }) => {
      const el = document.querySelector(`[data-testid="${testId}"]`);
      const outer = document.querySelector(`[data-testid="${inside}"]`);
      if (!el || !outer) return { found: false };
      const b = el.getBoundingClientRect();
      const o = outer.getBoundingClientRect();
      const inWindow = b.top >= 0 && b.left >= 0 && b.bottom <= window.innerHeight && b.right <= window.innerWidth;
      const inOuter = b.top >= o.top - 0.5 && b.bottom <= o.bottom + 0.5 && b.left >= o.left - 0.5 && b.right <= o.right + 0.5;
      // what a click at its centre would hit: itself (or a child), not something drawn over it
      const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
      return { found: true, inWindow, inOuter, onTop: !!hit && el.contains(hit), top: b.top, bottom: b.bottom, height: window.innerHeight };
    },
    { testId, inside },
  );
}

async function main() {
  mkdirSync(RESULTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), "spanload-first-run-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  let runId = null;
  try {
    await step("/docs lists the API's operations with the network off the server blocked", async () => {
      const blocked = [];
      await page.route("**/*", (route) => {
        if (route.request().url().startsWith(BASE)) return route.continue();
        blocked.push(route.request().url());
        return route.abort("internetdisconnected");
      });
      try {
        await page.goto(`${BASE}/docs`);
        await page.waitForSelector(".opblock", { timeout: 30_000 });
        const paths = await page.$$eval(".opblock-summary-path", (els) => els.map((e) => e.getAttribute("data-path") ?? e.textContent));
        assert(paths.length >= 10, `only ${paths.length} operations shown`);
        assert(paths.some((p) => p.includes("/api/runs")), `no /api/runs among ${paths.join(", ")}`);
        assert(blocked.length === 0, `the page asked for ${blocked.join(", ")}`);
        await shot(page, "docs-offline-1280");
      } finally {
        await page.unroute("**/*");
      }
    });

    await step("/runs/unknown answers 404 with a sentence, page and live socket alike", async () => {
      for (const path of ["/runs/unknown", "/runs/unknown/live"]) {
        const response = await page.goto(`${BASE}${path}`);
        assert(response?.status() === 404, `${path}: HTTP ${response?.status()}`);
        const text = await page.getByTestId("no-such-run").textContent({ timeout: 30_000 });
        assert(text.includes(NOT_FOUND), `${path} says: ${text}`);
      }
      const closed = await page.evaluate(
        (url) =>
          new Promise((resolve) => {
            const ws = new WebSocket(url);
            ws.onclose = (e) => resolve({ code: e.code, reason: e.reason });
          }),
        `${BASE.replace(/^http/, "ws")}/api/runs/unknown/live`,
      );
      assert(closed.code === 4404 && closed.reason === NOT_FOUND, `the socket closed with ${JSON.stringify(closed)}`);
    });

    runId = await step("after Start the live page opens at its top", async () => {
      await page.goto(`${BASE}/runs/new`);
      await page.getByTestId("preset-select").selectOption("light");
      await page.getByTestId("field-name").fill("first run");
      // a definition preset's form: its run, target and client sections open, so that it scrolls
      for (const section of ["run", "target", "client"]) await page.locator(`[data-testid="section-${section}"] > summary`).click();
      await page.getByTestId("start-run").scrollIntoViewIfNeeded();
      const formScroll = await page.evaluate(() => window.scrollY);
      assert(formScroll > 0, "the New run page did not scroll: the check below would prove nothing");
      await page.getByTestId("start-run").click();
      await page.waitForURL(/\/runs\/[^/]+\/live$/, { timeout: STEP_TIMEOUT_MS });
      await page.getByTestId("live-page").waitFor();
      const scrollY = await page.evaluate(() => window.scrollY);
      assert(scrollY === 0, `the live page opened scrolled down by ${scrollY} px (the form was at ${formScroll})`);
      const stop = await boxIn(page, "stop-run", "live-page");
      assert(stop.inWindow, `Stop is out of view: ${JSON.stringify(stop)}`);
      return page.url().split("/runs/")[1].split("/")[0];
    });

    await step("the change watcher's live page leads with its own charts", async () => {
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-notify"]')?.getAttribute("data-points") ?? 0) >= 3, null, { timeout: STEP_TIMEOUT_MS });
      const order = await page.$$eval('[data-testid="live-page"] [data-testid^="chart-"]', (els) => els.map((e) => e.getAttribute("data-testid")));
      const lead = ["chart-op-write-throughput", "chart-op-write-latency", "chart-notify", "chart-poll", "chart-poll-server", "chart-server-poll", "chart-errors"];
      assert(JSON.stringify(order.slice(0, lead.length)) === JSON.stringify(lead), `charts in order: ${order.join(", ")}`);
      // the operations light leaves off follow, then the participants chart
      const participants = order.indexOf("chart-participants");
      assert(participants === -1 || participants === order.length - 1, `participants chart at ${participants}: ${order.join(", ")}`);
      const help = await page.getByTestId("chart-notify").textContent();
      assert(help.includes("Watcher lag: the longest a change could wait"), "the notify chart does not define the watcher lag");
      await shot(page, "live-1280");
    });

    await step("at 1280x900 the live controls never hide Apply, its confirmation or a knob", async () => {
      // the panel's last knob (the definition's, in its order; fixed or live), the one furthest down
      const last = await page.$$eval('[data-testid="control-knobs"] [data-testid^="control-knobs."]', (els) => els.map((e) => e.getAttribute("data-testid")).pop());
      assert(last, "the live controls have no knob");
      await page.getByTestId(last).scrollIntoViewIfNeeded();
      const knob = await boxIn(page, last, "control-knobs");
      assert(knob.inWindow && knob.inOuter && knob.onTop, `${last}, scrolled to: ${JSON.stringify(knob)}`);
      const rate = page.getByTestId("control-knobs.transactions_per_second");
      await rate.scrollIntoViewIfNeeded();
      await rate.fill("8");
      const apply = await boxIn(page, "apply-config", "control-panel");
      assert(apply.inWindow && apply.inOuter && apply.onTop, `Apply: ${JSON.stringify(apply)}`);
      await page.getByTestId("apply-config").click();
      await page.waitForSelector('[data-testid="apply-status"][data-state="confirmed"]', { timeout: STEP_TIMEOUT_MS });
      const status = await boxIn(page, "apply-status", "control-panel");
      assert(status.inWindow && status.inOuter && status.onTop, `"Confirmed": ${JSON.stringify(status)}`);
      await shot(page, "live-controls-1280");
    });

    await step("at 390 px the live controls come before the charts", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${BASE}/runs/${runId}/live`);
      await page.getByTestId("toggle-controls").waitFor();
      const toggle = await boxIn(page, "toggle-controls", "control-panel");
      assert(toggle.inWindow, `the controls' toggle is out of view: ${JSON.stringify(toggle)}`);
      const before = await page.evaluate(() => {
        const panel = document.querySelector('[data-testid="control-panel"]');
        const chart = document.querySelector('[data-testid="run-charts"]');
        return panel.getBoundingClientRect().top < chart.getBoundingClientRect().top;
      });
      assert(before, "the controls are drawn below the charts");
      await shot(page, "live-390");
      await page.getByTestId("toggle-controls").click();
      await page.getByTestId("apply-config").scrollIntoViewIfNeeded();
      const apply = await boxIn(page, "apply-config", "control-panel");
      assert(apply.inWindow && apply.onTop, `Apply: ${JSON.stringify(apply)}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert(overflow <= 1, `the page scrolls sideways by ${overflow} px`);
      await shot(page, "live-390-controls");
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await step("the finished run's detail page says '1 process' and 1 watcher", async () => {
      await api(`/runs/${runId}/stop`, { method: "POST" });
      await page.goto(`${BASE}/runs/${runId}`);
      await page.waitForSelector('[data-testid="summary"]', { timeout: STEP_TIMEOUT_MS });
      const processes = await page.getByTestId("config-processes").textContent();
      // the definition's watchers knob has no unit (workloads/change_watcher.yaml): the number alone
      const watchers = await page.getByTestId("config-knobs.watchers").textContent();
      assert(processes === "1 process" && watchers === "1", `config says "${processes}", "${watchers}"`);
      await page.screenshot({ path: join(RESULTS, "detail-1280.png"), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await page.waitForSelector('[data-testid="summary"]', { timeout: STEP_TIMEOUT_MS });
      await shot(page, "detail-390");
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await step("a failed run says it failed, with the reason, and its live page draws no empty charts", async () => {
      // a local Spanner address where nothing listens: the first RPC fails the run within seconds
      const created = await api("/runs", {
        method: "POST",
        body: JSON.stringify({ preset: "light", name: "fails", overrides: { target: { kind: "emulator", emulator_host: "127.0.0.1:9" } } }),
      });
      assert(created.status === 201 || created.status === 200, `start: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.id;
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      let run = created.body;
      while (run.status !== "failed" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        run = (await api(`/runs/${id}`)).body;
        assert(run.status !== "finished", "the run against a dead target finished");
      }
      assert(run.status === "failed" && run.failure_reason, `run: ${run.status} ${run.failure_reason}`);
      await page.goto(`${BASE}/runs/${id}`);
      const banner = await page.getByTestId("run-failed").textContent({ timeout: 30_000 });
      assert(banner.includes("This run failed.") && banner.includes(run.failure_reason), `banner: ${banner}`);
      const summary = await page.getByTestId("no-summary").textContent();
      assert(!summary.includes("No summary yet"), `summary says: ${summary}`);
      await page.screenshot({ path: join(RESULTS, "failed-detail-1280.png"), fullPage: true });
      await page.goto(`${BASE}/runs/${id}/live`);
      await page.getByTestId("run-ended-banner").waitFor({ timeout: 30_000 });
      const text = await page.getByTestId("live-page").textContent();
      assert(text.includes("The run failed.") && text.includes(run.failure_reason), `the live page says: ${text}`);
      const charts = await page.locator('[data-testid="live-page"] .chart').count();
      const empty = await page.locator('[data-testid="live-page"] .chart-empty').count();
      assert(empty === 0, `the failed run's live page draws ${empty} empty charts of ${charts}`);
      await shot(page, "failed-live-1280");
    });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  if (failures() > 0) {
    console.log(`${failures()} step(s) failed`);
    process.exit(1);
  }
  console.log("all steps passed");
}

await main();
