import { openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

// Node holds a timer for at most 2^31-1 ms: a longer one fires after 1 ms (with a TimeoutOverflowWarning),
// so a timeout meant as "wait as long as it takes" would become "give up at once".
describe("a command timeout longer than a Node timer holds", () => {
  it("connects, writes and closes with no timer cut to 1 ms, from a URL and from options", async () => {
    const overflows: string[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === "TimeoutOverflowWarning") overflows.push(warning.message);
    };
    process.on("warning", onWarning);
    const prefix = uniquePrefix("long-timeout");
    const fromUrl = await openStore(`${singleUrl()}?prefix=${prefix}&timeout=${2 ** 40}`);
    const fromOptions = redisStore({ url: singleUrl(), prefix, commandTimeoutMs: 2 ** 40 });
    try {
      for (const store of [fromUrl, fromOptions]) {
        const thread = await store.create();
        await thread.append({ role: "user", text: "hello" });
        expect(await (await store.get(thread.id)).messages()).toHaveLength(1);
      }
      await Promise.all([fromUrl.close(), fromOptions.close()]);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(overflows).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await fromUrl.close();
      await fromOptions.close();
      await deleteKeys(singleUrl(), prefix);
    }
  });
});
