import { openStore, type ThreadStore } from "@skein/thread-core";
import { beforeEach, describe, expect, it } from "vitest";
import { createThreadService, InvalidThreadConfigError, SERVICE_RECORD_KEY } from "../src/index.js";
import { scriptedRunner } from "./fake-runners.js";

let store: ThreadStore;

beforeEach(async () => {
  store = await openStore("memory:");
});

async function configError(config: unknown): Promise<InvalidThreadConfigError> {
  const service = createThreadService({ store, runner: scriptedRunner() });
  const error = await service.createThread({ config: config as never }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidThreadConfigError);
  return error as InvalidThreadConfigError;
}

describe("thread configuration", () => {
  it("is validated, listing every problem", async () => {
    const error = await configError({ temperature: 7, maxTime: -1, thinkingLevel: "max", colour: "red" });
    expect(error.message).toMatch(/^\[thread-service\] Invalid thread configuration/);
    expect(error.issues).toEqual(
      expect.arrayContaining([
        "config.temperature must be <= 2",
        "config.maxTime must be >= 1",
        "config.thinkingLevel must be one of none, low, medium, high",
        'config has an unknown field "colour"',
      ]),
    );
  });

  it("refuses values that are not JSON data", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect((await configError({ parameters: cyclic })).issues[0]).toMatch(
      /config.parameters.self appears twice/,
    );
    expect((await configError({ parameters: { when: new Date() } })).issues).toEqual([
      "config.parameters.when must be a plain object",
    ]);
    expect((await configError({ maxInputTokens: Number.NaN })).issues).toEqual([
      "config.maxInputTokens must be a finite number",
    ]);
    expect((await configError({ parameters: { run: () => 1 } })).issues).toEqual([
      "config.parameters.run is a function, not JSON data",
    ]);
  });

  it("refuses an output schema ajv cannot compile", async () => {
    const error = await configError({ outputSchema: { type: "objekt" } });
    expect(error.issues[0]).toMatch(/outputSchema is not a valid JSON Schema/);
    expect(
      (await configError({ outputSchema: { $schema: "http://json-schema.org/draft-04/schema#" } })).issues[0],
    ).toMatch(/draft 2020-12, 2019-09 or draft-07/);
  });

  it("is frozen, persisted with the thread, and not changed by changing the caller's object", async () => {
    const service = createThreadService({ store, runner: scriptedRunner() });
    const config = { model: "m", parameters: { tools: ["search"] }, outputSchema: { type: "object" } };
    const { threadId } = await service.createThread({ config, metadata: { owner: "u-1" } });
    config.parameters.tools.push("mutated");
    const info = await service.info(threadId);
    expect(info.config).toEqual({
      model: "m",
      parameters: { tools: ["search"] },
      outputSchema: { type: "object" },
    });
    expect(Object.isFrozen(info.config)).toBe(true);
    expect(Object.isFrozen(info.config.parameters)).toBe(true);
    expect(() => (info.config.parameters as { tools: string[] }).tools.push("x")).toThrow(TypeError);

    const thread = await store.get(threadId);
    expect(thread.metadata.owner).toBe("u-1");
    expect(JSON.parse(JSON.stringify(thread)).metadata[SERVICE_RECORD_KEY].config.model).toBe("m");
  });

  it("reserves its metadata key", async () => {
    const service = createThreadService({ store, runner: scriptedRunner() });
    await expect(service.createThread({ metadata: { [SERVICE_RECORD_KEY]: {} } })).rejects.toBeInstanceOf(
      InvalidThreadConfigError,
    );
  });

  it("accepts an empty configuration and appends the initial messages", async () => {
    const service = createThreadService({ store, runner: scriptedRunner() });
    const { threadId } = await service.createThread({
      id: "support-1",
      initialMessages: [
        { role: "system", text: "Be kind." },
        { role: "assistant", text: "Hello!" },
      ],
    });
    expect(threadId).toBe("support-1");
    expect((await (await store.get(threadId)).messages()).map((message) => message.role)).toEqual([
      "system",
      "assistant",
    ]);
  });

  it("checks the service's own options", () => {
    expect(() => createThreadService({ store, runner: scriptedRunner(), concurrency: 0 })).toThrow(
      RangeError,
    );
    expect(() => createThreadService({ store, runner: scriptedRunner(), leaseMs: 5 })).toThrow(RangeError);
    const provider = { name: "memory" };
    expect(() =>
      createThreadService({ store, runner: scriptedRunner(), contextProviders: [provider, provider] }),
    ).toThrow(/two context providers/);
  });
});
