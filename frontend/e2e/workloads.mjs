// Browser test of the Workloads page against a real `spanload serve` (with the local Spanner),
// in Debian's chromium through playwright-core. Base URL from SPANLOAD_URL.
//
//   SPANLOAD_URL=http://127.0.0.1:8000 npm run e2e:workloads
//
// It writes a definition for a schema the project never saw (a library: books and loans, three
// operations) in the editor with a misspelt column, validates it and sees the error placed on that
// line, fixes it, validates and dry-runs it (each operation once, what came back), starts it, moves a generated knob live and sees that
// operation's target move to the new value, then runs the same definition again with another
// lend_rate and sees compare show that knob's values and say the definitions are the same. Screenshots at 1280 and 390 px of the Workloads page,
// the editor with the error and the live page go to frontend/test-results/workloads/.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { check, finish, stepper } from "./steps.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS = join(HERE, "..", "test-results", "workloads");
const CHROMIUM = process.env.SPANLOAD_CHROMIUM ?? "/usr/bin/chromium";
const BASE = (process.env.SPANLOAD_URL ?? "").replace(/\/+$/, "");
/** Generous bounds for waiting on a real run; they are not speed assertions. */
const STEP_TIMEOUT_MS = 90_000;
const NEW_LEND_RATE = 12;
/** The second run's lend_rate: its only difference from the first. */
const SECOND_LEND_RATE = 8;

if (!BASE) {
  console.error("e2e: set SPANLOAD_URL to the address of a running `spanload serve`, e.g. http://127.0.0.1:8000");
  process.exit(2);
}

/** The definition, with `column` in the lend operation's query (line BAD_LINE). */
const library = (column) => `name: library
description: Books lent from a library's shelves, browsed by key, and the loans counted.
ddl:
  - CREATE TABLE Books (BookId INT64 NOT NULL, Title STRING(100), Copies INT64) PRIMARY KEY (BookId)
  - CREATE TABLE Loans (BookId INT64 NOT NULL, LoanId STRING(36) NOT NULL, Borrowed TIMESTAMP OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (BookId, LoanId), INTERLEAVE IN PARENT Books ON DELETE CASCADE
knobs:
  books: {default: 200, min: 10, max: 100000, live: false, help: books on the shelves}
  lend_rate: {default: 4, min: 1, max: 200, unit: loans/s, help: loans per second}
values:
  book: {uniform: {min: 1, max: $books}}
  loan: uuid
load:
  Books: {rows: $books, columns: {BookId: {sequence: {start: 1}}, Title: {string: {length: [5, 30]}}, Copies: {uniform: {min: 1, max: 5}}}}
operations:
  lend:
    rate: $lend_rate
    transaction: read_write
    steps:
      - sql: SELECT ${column} FROM Books WHERE BookId = @book
        bind: {copies: Copies}
      - insert: {table: Loans, columns: {BookId: $book, LoanId: $loan, Borrowed: commit_timestamp}}
  browse:
    rate: 10
    transaction: single_use
    steps:
      - read: {table: Books, key: {BookId: $book}, columns: [Title, Copies]}
  shelf_count:
    concurrency: 1
    think_time: 500ms
    transaction: read_only
    steps:
      - sql: SELECT COUNT(*) AS n FROM Loans
`;
const BAD_LINE = library("X").split("\n").findIndex((l) => l.includes("SELECT X FROM Books")) + 1;

const { step, failures } = stepper({ rethrow: true });

async function shoot(page, name) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(RESULTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Replace the editor's text as a user would: select all, then type (paste) the new text. */
async function setText(page, text) {
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
  const got = await page.evaluate(() => [...document.querySelectorAll(".cm-line")].map((l) => l.textContent).join("\n"));
  check(got.trim() === text.trim(), `the editor holds other text than typed:\n${got}`);
}

mkdirSync(RESULTS, { recursive: true });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
page.setDefaultTimeout(STEP_TIMEOUT_MS);
const pageErrors = [];
page.on("pageerror", (err) => pageErrors.push(err.message));

try {
  await step("open the Workloads page from the header and see the built-in definitions", async () => {
    await page.goto(`${BASE}/`);
    await page.click('[data-testid="nav-workloads"]');
    await page.waitForSelector('[data-testid="workload-shop"]');
    await page.waitForSelector(".cm-content");
    await shoot(page, "workloads-page");
  });

  await step(`write a library definition with a misspelt column and see the error on line ${BAD_LINE}`, async () => {
    await setText(page, library("Copiez"));
    await page.click('[data-testid="validate"]');
    await page.waitForSelector('[data-testid="problems"] li');
    const lines = await page.$$eval('[data-testid="problems"] li', (items) => items.map((li) => li.getAttribute("data-line")));
    check(lines.includes(String(BAD_LINE)), `no problem placed on line ${BAD_LINE}: ${JSON.stringify(lines)}`);
    // The editor marks the line itself: an underline on it, and a marker in its gutter.
    await page.waitForSelector(".cm-lintRange-error");
    const marked = await page.evaluate(() => {
      const range = document.querySelector(".cm-lintRange-error");
      const line = range?.closest(".cm-line");
      return line ? [...document.querySelectorAll(".cm-line")].indexOf(line) + 1 : -1;
    });
    check(marked === BAD_LINE, `the underline is on line ${marked}, not ${BAD_LINE}`);
    const text = await page.innerText('[data-testid="problems"]');
    check(/Copiez/i.test(text), `the problem does not name the column: ${text}`);
    await shoot(page, "editor-error");
  });

  await step("fix it, validate and dry-run it", async () => {
    await setText(page, library("Copies"));
    await page.click('[data-testid="validate"]');
    await page.waitForSelector('[data-testid="valid"]');
    check((await page.$$(".cm-lintRange-error")).length === 0, "the fixed definition still shows an error in the editor");
    await page.click('[data-testid="dry-run-button"]');
    await page.waitForSelector('[data-testid="dry-run"], [data-testid="editor-message"]');
    const refused = await page.$('[data-testid="editor-message"]');
    check(!refused, `the dry run was refused: ${refused && (await refused.innerText())}`);
    const ops = await page.$$eval('[data-testid^="dry-run-"][data-ok]', (els) => els.map((e) => [e.getAttribute("data-testid").slice(8), e.getAttribute("data-ok")]));
    console.log(`     dry run: ${ops.map(([op, ok]) => `${op} ${ok === "true" ? "ran" : "failed"}`).join(", ")}`);
    check(ops.length === 3 && ops.every(([, ok]) => ok === "true"), `the dry run shows ${JSON.stringify(ops)}`);
    // The lend transaction read a book's copies: the row that came back is shown, and its insert rolled back.
    const lend = await page.innerText('[data-testid="dry-run-lend"]');
    check(/rolled back/.test(lend) && /Copies/.test(lend), `lend's dry run shows: ${lend}`);
    await shoot(page, "dry-run");
  });

  const runId = await step("start it and land on its live page", async () => {
    await page.fill('[data-testid="duration"]', "600");
    await page.click('[data-testid="start-definition"]');
    await page.waitForURL(/\/runs\/[^/]+\/live$/);
    await page.waitForSelector('[data-testid="live-page"][data-status="running"]');
    return page.url().split("/").slice(-2)[0];
  });

  await step("see the generated controls and per-operation charts", async () => {
    await page.waitForSelector('[data-testid="control-knobs.lend_rate"]');
    check(await page.isDisabled('[data-testid="control-knobs.books"]'), "the knob books (live: false) can be changed");
    await page.waitForSelector('[data-testid="control-operations.browse.rate"]');
    await page.waitForSelector('[data-testid="control-operations.shelf_count.concurrency"]');
    for (const op of ["lend", "browse", "shelf_count"]) await page.waitForSelector(`text=${op}: throughput, target vs achieved`);
    await page.waitForFunction(() => document.querySelector('[data-testid="op-target-lend"]')?.textContent === "4");
  });

  await step(`move lend_rate live to ${NEW_LEND_RATE} and see lend's target move`, async () => {
    await page.fill('[data-testid="control-knobs.lend_rate"]', String(NEW_LEND_RATE));
    await page.click('[data-testid="apply-config"]');
    await page.waitForSelector('[data-testid="apply-status"][data-state="confirmed"]');
    await page.waitForFunction((rate) => document.querySelector('[data-testid="op-target-lend"]')?.textContent === String(rate), NEW_LEND_RATE);
    // The browse operation's own target stays.
    check((await page.innerText('[data-testid="op-target-browse"]')) === "10", "browse's target moved with lend's knob");
    // Let the charts draw a few points past the change.
    await page.waitForTimeout(4000);
    await shoot(page, "live-three-operations");
  });

  await step("stop the run", async () => {
    await page.click('[data-testid="stop-run"]');
    await page.waitForSelector(`[data-testid="live-page"][data-run-id="${runId}"][data-status="finished"], [data-testid="live-page"][data-status="stopped"]`);
  });

  await step(`run the same definition again, move lend_rate live to ${SECOND_LEND_RATE}, and compare: only the knob differs, the definitions are the same`, async () => {
    await page.goto(`${BASE}/workloads`);
    await page.waitForSelector(".cm-content");
    await setText(page, library("Copies")); // the first run's definition, to the letter
    await page.fill('[data-testid="duration"]', "600"); // as the first run: no run-level setting differs
    await page.click('[data-testid="start-definition"]');
    await page.waitForURL(/\/runs\/[^/]+\/live$/);
    const second = page.url().split("/").slice(-2)[0];
    check(second !== runId, "the second start opened the first run");
    await page.waitForSelector(`[data-testid="live-page"][data-run-id="${second}"][data-status="running"]`);
    await page.waitForSelector('[data-testid="control-knobs.lend_rate"]');
    await page.fill('[data-testid="control-knobs.lend_rate"]', String(SECOND_LEND_RATE));
    await page.click('[data-testid="apply-config"]');
    await page.waitForSelector('[data-testid="apply-status"][data-state="confirmed"]');
    await page.waitForFunction((rate) => document.querySelector('[data-testid="op-target-lend"]')?.textContent === String(rate), SECOND_LEND_RATE);
    await page.click('[data-testid="stop-run"]');
    await page.waitForSelector(`[data-testid="live-page"][data-run-id="${second}"][data-status="stopped"], [data-testid="live-page"][data-run-id="${second}"][data-status="finished"]`);

    await page.goto(`${BASE}/compare?ids=${runId},${second}`);
    const definitions = page.getByTestId("definition-diff");
    await definitions.waitFor();
    const said = await definitions.innerText();
    check(said.includes("The runs ran the same definition."), `the definition diff does not say the definitions are the same: ${said}`);
    check((await page.getByTestId("definition-diff-1").count()) === 0, "a definition diff is drawn for two runs of one definition");
    // The config diff: the knob, with each run's value at start and where it moved live, and the
    // seed, which each run draws for itself when none is set; nothing else.
    const fields = await page.$$eval('[data-testid="config-diff-row"] th', (ths) => ths.map((th) => th.textContent ?? ""));
    check(JSON.stringify(fields) === JSON.stringify(["knobs.lend_rate", "seed"]), `the config diff shows the rows ${JSON.stringify(fields)}`);
    const cells = [0, 1].map((i) => page.getByTestId(`config-diff-knobs.lend_rate-${i}`));
    const values = await Promise.all(cells.map((c) => c.innerText()));
    console.log(`     knobs.lend_rate: ${values.join(" | ")}`);
    // Each run's value at its end, moved live. (The value at start shows as "—": both runs left the
    // knob at its default, 4, which the stored config does not spell out.)
    const moved = (v, rate) => v.includes(`→ ${rate} `) && v.includes("changed live");
    check(moved(values[0], NEW_LEND_RATE) && moved(values[1], SECOND_LEND_RATE), `lend_rate's cells: ${JSON.stringify(values)}`);
    const section = definitions.locator("xpath=..");
    await section.screenshot({ path: join(RESULTS, "compare-definition-diff-1280.png") });
  });
} catch {
  // reported by step()
} finally {
  await browser.close();
}

finish(failures(), pageErrors);
