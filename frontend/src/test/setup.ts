import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// findBy*/waitFor wait for what a test expects to appear; 1 s (the library's default) was once too
// short for a lazily loaded page on a loaded 2-core CI machine. A wait is a bound, not an assertion
// on time: a test still fails when the element never comes.
configure({ asyncUtilTimeout: 5_000 });

afterEach(() => {
  cleanup();
});

// recharts' ResponsiveContainer needs ResizeObserver, which jsdom lacks.
class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= ResizeObserverStub as unknown as typeof ResizeObserver;

// jsdom has no layout: window.scrollTo only reports "not implemented". Tests that care stub it.
window.scrollTo = () => undefined;
