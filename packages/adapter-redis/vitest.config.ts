import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // openStore("redis://…") in thread-core imports this package by name: give it the sources, not dist.
    alias: [
      {
        find: /^@skein\/adapter-redis$/,
        replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)),
      },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Starts a redis-server and a 3-master Redis Cluster on loopback unless REDIS_URL / REDIS_CLUSTER_URL are set.
    globalSetup: ["test/global-setup.ts"],
  },
});
