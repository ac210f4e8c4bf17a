import { inject } from "vitest";
import { storeCommandSuite } from "./store-command-suite.js";

storeCommandSuite({
  name: "redis",
  type: "redis",
  url: () => inject("redisUrl"),
  scope: `cli-commands-${Date.now().toString(36)}`,
});
