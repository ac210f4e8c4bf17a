import { existsSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { startRedis } from "../../../scripts/redis-server.mjs";
import { BIN } from "./run-skein.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** The tests run the built CLI, and need a Redis: REDIS_URL's, or one started here and stopped after. */
export default async function setup(project: TestProject) {
  if (!existsSync(BIN)) {
    throw new Error(
      `${BIN} is missing: these tests run the built CLI. Build first: npm run build (at the repo root), or npx tsup in packages/cli.`,
    );
  }
  const redis = await startRedis();
  project.provide("redisUrl", redis.url);
  return () => redis.stop();
}
