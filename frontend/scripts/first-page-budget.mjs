// The JavaScript the first page loads, gzipped, against a budget (issue 27: at most 120 kB).
// "The first page" is what index.html loads before any route's lazy chunk: its entry module and
// every chunk that entry imports statically (vite lists those as <link rel="modulepreload">).
// Lazy routes (import()) are not counted: the browser fetches them only when the route opens.
//
//   node scripts/first-page-budget.mjs [distDir] [budgetKb]
//
// Prints each file and the total; exits 1 over budget, 2 when the build is missing.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const DIST = process.argv[2] ?? join(import.meta.dirname, "..", "dist");
const BUDGET_KB = Number(process.argv[3] ?? process.env.SPANLOAD_FIRST_PAGE_BUDGET_KB ?? 120);

const index = join(DIST, "index.html");
if (!existsSync(index)) {
  console.error(`first-page budget: ${index} does not exist; build the UI first (make frontend).`);
  process.exit(2);
}

/** The scripts index.html loads at once: its module entry and the modulepreloaded chunks. */
function firstPageScripts(html) {
  const found = new Set();
  for (const m of html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)) found.add(m[1]);
  for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) found.add(m[1]);
  return [...found];
}

const scripts = firstPageScripts(readFileSync(index, "utf8"));
if (scripts.length === 0) {
  console.error("first-page budget: index.html loads no module script; is this a vite build?");
  process.exit(2);
}
let total = 0;
for (const src of scripts) {
  const bytes = gzipSync(readFileSync(join(DIST, src.replace(/^\//, "")))).length;
  total += bytes;
  console.log(`  ${(bytes / 1024).toFixed(2).padStart(8)} kB  ${src}`);
}
const kb = total / 1024;
if (kb > BUDGET_KB) {
  console.error(`first-page budget: the first page loads ${kb.toFixed(2)} kB of JavaScript gzipped, over the ${BUDGET_KB} kB budget; load what it does not need in a lazy route (src/app/routes.tsx).`);
  process.exit(1);
}
console.log(`first-page budget: ${kb.toFixed(2)} kB of JavaScript gzipped, within ${BUDGET_KB} kB`);
