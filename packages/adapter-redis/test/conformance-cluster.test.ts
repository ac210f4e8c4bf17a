import { runConformanceSuite } from "@skein/thread-core/testing";
import { afterAll, describe, it } from "vitest";
import { redisStore } from "../src/index.js";
import { clusterUrl, connectCluster, deleteKeys, uniquePrefix } from "./redis-nodes.js";

// Every case's store shares one cluster client passed in (which store.close() must leave open).
let cluster: Awaited<ReturnType<typeof connectCluster>> | undefined;
let prefix = "";
runConformanceSuite({
  name: "redis (cluster)",
  createStore: async () => {
    cluster ??= await connectCluster();
    prefix = uniquePrefix("cluster");
    return redisStore({ client: cluster, prefix });
  },
  // Another cluster connection to the same data.
  openSecondStore: async () => redisStore({ url: clusterUrl(), cluster: true, prefix }),
  cleanup: () => deleteKeys(clusterUrl(), prefix),
  describe,
  it,
});
afterAll(async () => {
  await cluster?.close();
});
