import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // openStore("postgres://…") in thread-core imports this package by name: give it the sources, not dist.
    alias: [
      {
        find: /^@skein\/adapter-postgres$/,
        replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)),
      },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Starts a throw-away PostgreSQL on loopback unless DATABASE_URL is set.
    globalSetup: ["test/global-setup.ts"],
  },
});
