import { testEncryption } from "@skein/test-support/encryption-markers";
import { runConformanceSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { redisStore } from "../src/index.js";
import { deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

// The whole suite on a Redis store that encrypts at rest, one prefix per case.
let prefix = "";
const encryption = testEncryption();
runConformanceSuite({
  name: "redis (encrypted)",
  createStore: async () => {
    prefix = uniquePrefix("encrypted-conformance");
    return redisStore({ url: singleUrl(), prefix, encryption });
  },
  openSecondStore: async () => redisStore({ url: singleUrl(), prefix, encryption }),
  cleanup: () => deleteKeys(singleUrl(), prefix),
  describe,
  it,
});
