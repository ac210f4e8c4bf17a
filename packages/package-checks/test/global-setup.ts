import { globalSetup } from "@skein/test-support/global-setup";
import type { TestProject } from "vitest/node";
import { startEmulator } from "../../adapter-openai/test/emulator/emulator.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** adapter-openai's loopback emulator of the OpenAI API, for blocks that make a `new OpenAI()`. */
    openai: { baseUrl: string; apiKey: string };
  }
}

const startRedis = globalSetup({ redis: true });

/** A Redis for the README blocks that use one (REDIS_URL, or one started here), and the OpenAI emulator. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stopRedis = await startRedis(project);
  const openai = await startEmulator().catch(async (error) => {
    await stopRedis();
    throw error;
  });
  project.provide("openai", { baseUrl: `${openai.url}/v1`, apiKey: openai.apiKey });
  return async () => {
    await Promise.all([stopRedis(), openai.close()]);
  };
}
