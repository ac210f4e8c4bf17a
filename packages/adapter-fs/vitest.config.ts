import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `openStore("file:…")` in thread-core imports "@skein/adapter-fs"; the tests point it at these sources, so
// they need no build of this package.
const source = fileURLToPath(new URL("./src/index.ts", import.meta.url));

export default defineConfig({
  resolve: { alias: [{ find: /^@skein\/adapter-fs$/, replacement: source }] },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/install-strace.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
