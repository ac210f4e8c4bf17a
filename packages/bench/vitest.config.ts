import { defineConfig } from "vitest/config";

export default defineConfig({
  // The bench's tests start a redis-server and run small scenarios: generous, for loaded machines.
  test: { include: ["test/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 120_000 },
});
