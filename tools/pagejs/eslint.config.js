// ESLint for the page scripts (src/vmark/browser/js/*.js): scripts (not modules) that Chromium runs in an
// isolated world or as init scripts in the page's own world. The recommended rules plus the ones that
// catch real mistakes in such code (loose equality, eval in any form, accidental globals); nothing
// about layout: the scripts keep their own style.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["src/vmark/browser/js/*.js"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: {
        ...globals.browser,
        // declared by src/vmark/browser/isolated.py (protocol/limits.py's PAGE_SCRIPT_LIMITS)
        LIMITS: "readonly",
        // recorder.js: the driver puts runtime.js there (browser/recorder.py)
        __RUNTIME__: "readonly",
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      ...js.configs.recommended.rules,
      eqeqeq: "error",
      "no-var": "error",
      "prefer-const": "error",
      "no-eval": "error",
      "no-implied-eval": "error",
      "no-new-func": "error",
      "no-implicit-globals": "error",
      "no-throw-literal": "error",
      "no-self-compare": "error",
      "no-unmodified-loop-condition": "error",
      "no-unreachable-loop": "error",
      "no-promise-executor-return": "error",
      "no-constructor-return": "error",
      "no-shadow": "error",
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
];
