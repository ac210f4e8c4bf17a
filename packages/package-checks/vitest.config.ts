import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // Starts a loopback redis-server for the README blocks that use Redis, unless REDIS_URL is set.
    globalSetup: ["test/global-setup.ts"],
  },
});
