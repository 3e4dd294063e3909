/// <reference types="vitest/config" />
import { fileURLToPath, URL } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The dev server proxies /api (REST and websockets) to a local `spanload serve`.
// In production the backend serves dist/ itself, so there is no proxy.
const BACKEND = process.env.SPANLOAD_DEV_BACKEND ?? "http://127.0.0.1:8000";

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  server: {
    host: "127.0.0.1",
    proxy: { "/api": { target: BACKEND, ws: true, changeOrigin: true } },
  },
  build: { outDir: "dist", sourcemap: false, chunkSizeWarningLimit: 1200 },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    // A loaded 2-core machine (CI, or several jobs at once) can take several seconds to render a page.
    testTimeout: 20_000,
    restoreMocks: true,
    unstubGlobals: true,
  },
});
