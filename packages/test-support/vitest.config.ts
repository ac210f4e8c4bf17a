import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The fresh-store tests open a Redis store: the shared setup gives them one. They open fs and Redis stores
    // through the built @skein/adapter-fs and @skein/adapter-redis, which are not declared: both depend on
    // this package, and turbo refuses a cycle (the root `npm test` builds everything first).
    globalSetup: ["src/redis-global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
