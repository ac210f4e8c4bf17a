import type { TestProject } from "vitest/node";
import { startRedis } from "../../../scripts/redis-server.mjs";
import { startEmulator } from "../../adapter-openai/test/emulator/emulator.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** REDIS_URL, or a redis-server started for this run. */
    redisUrl: string;
    /** adapter-openai's loopback emulator of the OpenAI API, for blocks that make a `new OpenAI()`. */
    openai: { baseUrl: string; apiKey: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis();
  const openai = await startEmulator();
  project.provide("redisUrl", redis.url);
  project.provide("openai", { baseUrl: `${openai.url}/v1`, apiKey: openai.apiKey });
  return async () => {
    await Promise.all([redis.stop(), openai.close()]);
  };
}
