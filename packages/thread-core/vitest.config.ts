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
  test: { include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
});
