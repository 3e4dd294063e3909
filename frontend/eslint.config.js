import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import reactRefresh from "eslint-plugin-react-refresh";
import globals from "globals";
import tseslint from "typescript-eslint";

const FEATURES = ["runs", "live", "compare", "new-run", "workloads"];

export default tseslint.config(
  { ignores: ["dist", "node_modules", "test-results", "src/**/*.gen.ts"] },
  {
    files: ["e2e/**/*.mjs", "*.js"],
    extends: [js.configs.recommended],
    // e2e scripts run in node and pass functions to run in the page.
    languageOptions: { ecmaVersion: 2022, globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ["**/*.{ts,tsx}"],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2022, globals: globals.browser },
    plugins: { "react-hooks": reactHooks, "react-refresh": reactRefresh },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "react-refresh/only-export-components": ["warn", { allowConstantExport: true }],
    },
  },
  // Features do not import each other: they share through src/lib and src/components.
  ...FEATURES.map((feature) => ({
    files: [`src/features/${feature}/**/*.{ts,tsx}`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: FEATURES.filter((other) => other !== feature).flatMap((other) => [
                `@/features/${other}`,
                `@/features/${other}/*`,
                `**/features/${other}`,
                `**/features/${other}/*`,
              ]),
              message: "A feature may not import another feature: move what both need to src/lib or src/components.",
            },
          ],
        },
      ],
    },
  })),
  // Shared code does not import features: dependencies point from features (and the app shell
  // in src/app, which composes them) down to src/lib and src/components, never back up.
  {
    files: ["src/lib/**/*.{ts,tsx}", "src/components/**/*.{ts,tsx}", "src/test/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/features", "@/features/*", "@/app", "@/app/*", "**/features", "**/features/*", "**/app/*"],
              message: "Shared code (src/lib, src/components, src/test) may not import a feature or the app shell: move the code it needs down to src/lib.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/**/*.test.{ts,tsx}", "src/test/**"],
    rules: { "react-refresh/only-export-components": "off" },
  },
);
