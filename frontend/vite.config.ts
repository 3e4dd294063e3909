/// <reference types="vitest/config" />
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, URL } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/** The Swagger UI files /docs loads (backend/spanload/api/docs.py), copied from the pinned
 * swagger-ui-dist package into dist/swagger-ui/, so that the API docs work without a CDN. */
const SWAGGER_UI_FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE"];

function swaggerUi(): Plugin {
  const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return {
    name: "spanload-swagger-ui",
    apply: "build",
    generateBundle() {
      for (const file of SWAGGER_UI_FILES) this.emitFile({ type: "asset", fileName: `swagger-ui/${file}`, source: readFileSync(join(dist, file)) });
    },
  };
}

// The dev server proxies /api (REST and websockets) to a local `spanload serve`.
// In production the backend serves dist/ itself, so there is no proxy.
const BACKEND = process.env.SPANLOAD_DEV_BACKEND ?? "http://127.0.0.1:8000";

export default defineConfig({
  plugins: [react(), swaggerUi()],
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
