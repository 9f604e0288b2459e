// ESLint (flat config): the recommended rules over every JavaScript file of
// the repo, run by `npm test` (scripts/test.js) as `eslint .`.

import js from "@eslint/js";
import globals from "globals";

export default [
  {
    ignores: ["node_modules/", "build/", "dist/", "prebuilds/", "test/c/out/", ".tmp/"],
  },
  js.configs.recommended,
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      // The package runs in Node and in browsers (and its workers in both).
      globals: { ...globals.node, ...globals.browser, ...globals.worker },
    },
    rules: {
      // `catch {}` blocks say why they are empty in a comment.
      "no-empty": ["error", { allowEmptyCatch: true }],
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // CommonJS files the bin requires before it loads the CLI (lib/program/*.cjs).
    files: ["**/*.cjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "commonjs", globals: globals.node },
  },
];
