import { defineConfig } from "vitest/config";

// SKEIN_COMPAT=current (the Node 24 pass of scripts/test.mjs): the wrapped SDKs resolve to compat/current's majors.
const compat =
  process.env.SKEIN_COMPAT === "current"
    ? await import(
        /* @vite-ignore */ new URL("../../compat/current/vitest-current.mjs", import.meta.url).href
      )
    : undefined;

export default defineConfig({
  resolve: compat?.currentResolve(),
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
