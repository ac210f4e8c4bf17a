import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The kill loops and multi-process writers take 5-60 s on a quiet machine and several times that while
    // other work loads it: a limit this wide only ends a run that hangs, never one that is slow.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    fileParallelism: false,
    globalSetup: ["test/install-strace.ts"],
  },
});
