import { runLogDriverSuite } from "@skein/thread-core/testing";
import { afterAll, describe, it } from "vitest";
import { redisStore } from "../src/index.js";
import { clusterUrl, connectCluster, deleteKeys, singleUrl, uniquePrefix } from "./redis-nodes.js";

let prefix = "";
runLogDriverSuite({
  name: "redis",
  createDriver: () => {
    prefix = uniquePrefix("driver");
    return redisStore({ url: singleUrl(), prefix }).driver;
  },
  cleanup: () => deleteKeys(singleUrl(), prefix),
  describe,
  it,
});

// Every case's driver shares one cluster client passed in, which closing the driver leaves open.
let cluster: Awaited<ReturnType<typeof connectCluster>> | undefined;
let clusterPrefix = "";
runLogDriverSuite({
  name: "redis (cluster)",
  createDriver: async () => {
    cluster ??= await connectCluster();
    clusterPrefix = uniquePrefix("driver-cluster");
    return redisStore({ client: cluster, prefix: clusterPrefix }).driver;
  },
  cleanup: () => deleteKeys(clusterUrl(), clusterPrefix),
  describe,
  it,
});
afterAll(async () => {
  await cluster?.close();
});
