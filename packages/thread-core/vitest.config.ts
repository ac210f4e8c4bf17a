import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// thread-core's own tests run against its sources, so they need no build.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@skein\/thread-core\/testing$/, replacement: source("./src/testing/index.ts") },
      { find: /^@skein\/thread-core$/, replacement: source("./src/index.ts") },
    ],
  },
  // Property tests run hundreds of cases: on a busy machine they take far longer than vitest's 5 s default.
  test: { include: ["src/**/*.test.ts", "test/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 120_000 },
});
