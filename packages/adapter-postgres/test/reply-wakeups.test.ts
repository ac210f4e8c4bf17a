import { databaseUrl, dropSchema, uniqueSchema } from "@skein/test-support/test-postgres";
import type { LocalStore } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../src/index.js";

describe("wake-ups for followers of a streamed reply", () => {
  // The listener connects asynchronously, so the writer notifies until it hears one; the timeout is the failure.
  it("reach a watcher on another pool through LISTEN/NOTIFY, for its segment only", async () => {
    const schema = uniqueSchema("wakeups");
    const watching = (postgresStore({ url: databaseUrl(), schema }) as unknown as LocalStore).driver;
    const writing = (postgresStore({ url: databaseUrl(), schema }) as unknown as LocalStore).driver;
    try {
      const woken: string[] = [];
      const stopWanted = watching.watch?.("wanted-segment", () => woken.push("wanted"));
      const stopOther = watching.watch?.("other-segment", () => woken.push("other"));
      expect(stopWanted).toBeDefined();
      while (woken.length === 0) {
        await writing.notify?.("wanted-segment");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(new Set(woken)).toEqual(new Set(["wanted"]));
      await stopWanted?.();
      await stopOther?.();
    } finally {
      await watching.close();
      await writing.close();
      await dropSchema(schema);
    }
  }, 30_000);
});
