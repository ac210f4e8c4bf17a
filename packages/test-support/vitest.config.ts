import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The fresh-store tests open a Redis store: the shared setup gives them one.
    globalSetup: ["src/redis-global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
