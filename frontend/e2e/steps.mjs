// What the browser scripts share: named steps that print "ok   NAME (s)" or "FAIL NAME: why", and
// a check that fails a step with a sentence.

/** A step runner; `failures()` counts the steps that failed. With `rethrow`, a failed step's
 * error propagates (the steps after it depend on it); without, the next step runs. */
export function stepper({ rethrow = false } = {}) {
  let failed = 0;
  async function step(name, fn) {
    const started = Date.now();
    try {
      const result = await fn();
      console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      return result;
    } catch (err) {
      failed += 1;
      console.log(`FAIL ${name}: ${err instanceof Error ? err.message : String(err)}`);
      if (rethrow) throw err;
      return undefined;
    }
  }
  return { step, failures: () => failed };
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
}

/** The script's verdict: each failed step, and the page's uncaught errors as one more; exits 1 if any. */
export function finish(failed, pageErrors) {
  const total = failed + (pageErrors.length ? 1 : 0);
  if (pageErrors.length) console.log(`FAIL the page threw: ${pageErrors.join("; ")}`);
  console.log(total ? `${total} step(s) failed` : "all steps passed");
  process.exit(total ? 1 : 0);
}
