import { runRekeySuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { redisStore } from "../src/index.js";
import { deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

// Key rotation on Redis: each case opens one prefix again and again with the keys it gives.
let prefix = uniquePrefix("rekey");
runRekeySuite({
  name: "redis",
  openStore: async (encryption) =>
    redisStore({ url: singleUrl(), prefix, ...(encryption ? { encryption } : {}) }),
  cleanup: async () => {
    await deleteKeys(singleUrl(), prefix);
    prefix = uniquePrefix("rekey");
  },
  describe,
  it,
});
