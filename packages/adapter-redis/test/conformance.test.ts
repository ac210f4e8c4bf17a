import { runConformanceSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";
import { redisStore } from "../src/index.js";
import { deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

// One store per case, each under its own prefix, so every case starts from an empty store.
let prefix = "";
runConformanceSuite({
  name: "redis",
  createStore: async () => {
    prefix = uniquePrefix("conformance");
    return redisStore({ url: singleUrl(), prefix });
  },
  // Another connection to the same data.
  openSecondStore: async () => redisStore({ url: singleUrl(), prefix }),
  cleanup: () => deleteKeys(singleUrl(), prefix),
  describe,
  it,
});
