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
      /config.parameters.self is a cycle: it holds itself/,
    );
    const deep: Record<string, unknown> = { inner: { list: [] as unknown[] } };
    ((deep.inner as { list: unknown[] }).list as unknown[]).push(deep);
    expect((await configError({ parameters: deep })).issues[0]).toMatch(
      /config.parameters.inner.list.0 is a cycle/,
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

  it("takes one object used twice, under both schema names or inside one schema, which is not a cycle", async () => {
    const service = createThreadService({ store, runner: scriptedRunner() });
    const schema = { type: "object", required: ["verdict"] };
    const both = await service.createThread({
      config: { outputSchema: schema, structuredOutputSchema: schema },
    });
    expect((await service.info(both.threadId)).config.outputSchema).toEqual(schema);
    const text = { type: "string" };
    const reused = await service.createThread({
      config: { outputSchema: { type: "object", properties: { a: text, b: text } } },
    });
    expect((await service.info(reused.threadId)).config.outputSchema).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" } },
    });
    // Reuse is bounded by the values it writes out, not by the objects it holds.
    let wide: unknown = "leaf";
    for (let level = 0; level < 40; level++) wide = { left: wide, right: wide };
    expect((await configError({ parameters: wide })).issues[0]).toMatch(/holds more than 100000 values/);
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

  it("takes tags and every execution parameter of the design, and gives them to the runner", async () => {
    const runner = scriptedRunner(() => '{"city":"Lisbon"}');
    const service = createThreadService({ store, runner });
    const config = {
      systemPrompt: "Plan trips.",
      model: "m",
      tags: ["travel", "beta"],
      temperature: 0.4,
      thinkingLevel: "low" as const,
      imageCapabilityNeeded: true,
      embeddingOutputNeeded: false,
      structuredOutputSchema: '{"type":"object","required":["city"]}',
      maxInputTokens: 4000,
      maxOutputTokens: 500,
      maxTime: 60_000,
    };
    const { threadId } = await service.createThread({ config });
    const info = await service.info(threadId);
    const { structuredOutputSchema: _alias, ...rest } = config;
    // The design's name is stored under today's (`outputSchema`), parsed from its JSON text.
    expect(info.config).toEqual({ ...rest, outputSchema: { type: "object", required: ["city"] } });
    expect(Object.isFrozen(info.config.tags)).toBe(true);

    const result = await service.send(threadId, "Where?");
    expect(result.output).toEqual({ city: "Lisbon" });
    const { maxTime: _maxTime, ...runConfig } = info.config;
    expect(runner.seen[0]?.options.config).toEqual(runConfig);
  });

  it("accepts an alias and its name together only when they agree", async () => {
    const service = createThreadService({ store, runner: scriptedRunner() });
    const schema = { type: "object" };
    const { threadId } = await service.createThread({
      config: { outputSchema: schema, structuredOutputSchema: JSON.stringify(schema) },
    });
    expect((await service.info(threadId)).config).toEqual({ outputSchema: schema });

    expect(
      (await configError({ outputSchema: schema, structuredOutputSchema: { type: "array" } })).issues,
    ).toEqual([
      "config.structuredOutputSchema and config.outputSchema name one field and are both given, with different values",
    ]);
    expect((await configError({ structuredOutputSchema: "{not json" })).issues[0]).toMatch(
      /^config.outputSchema is a string but not JSON text/,
    );
    expect((await configError({ structuredOutputSchema: "[1]" })).issues).toEqual([
      "config.outputSchema must be object",
    ]);
    expect((await configError({ tags: ["a", "a", ""], imageCapabilityNeeded: "yes" })).issues).toEqual(
      expect.arrayContaining([
        "config.tags.2 must NOT have fewer than 1 characters",
        "config.imageCapabilityNeeded must be boolean",
      ]),
    );
    expect((await configError({ tags: ["a", "a"] })).issues[0]).toMatch(
      /config.tags must NOT have duplicate items/,
    );
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
