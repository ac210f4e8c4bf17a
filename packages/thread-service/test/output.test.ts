import { openStore, type ThreadStore } from "@skein/thread-core";
import { beforeEach, describe, expect, it } from "vitest";
import {
  createThreadService,
  OutputValidationError,
  type ServiceEvent,
  ThreadProcessingError,
} from "../src/index.js";
import { scriptedRunner } from "./fake-runners.js";

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" } },
  required: ["city", "celsius"],
  additionalProperties: false,
};

let store: ThreadStore;

beforeEach(async () => {
  store = await openStore("memory:");
});

async function serviceAnswering(answer: string, outputSchema: Record<string, unknown> = weatherSchema) {
  const service = createThreadService({ store, runner: scriptedRunner(() => answer) });
  const { threadId } = await service.createThread({ config: { outputSchema: outputSchema as never } });
  return { service, threadId };
}

describe("structured output", () => {
  it("parses and validates the final answer, resolving with it", async () => {
    const { service, threadId } = await serviceAnswering('{"city":"Paris","celsius":21.5}');
    const result = await service.send(threadId, "Weather in Paris?");
    expect(result.output).toEqual({ city: "Paris", celsius: 21.5 });
  });

  it("accepts an answer in a fenced JSON block", async () => {
    const { service, threadId } = await serviceAnswering('```json\n{"city":"Oslo","celsius":3}\n```');
    expect((await service.send(threadId, "Oslo?")).output).toEqual({ city: "Oslo", celsius: 3 });
  });

  it("raises OutputValidationError with the validator's errors and emits a failed event", async () => {
    const { service, threadId } = await serviceAnswering('{"city":"Paris","celsius":"warm","wind":3}');
    const events: ServiceEvent[] = [];
    const listening = (async () => {
      for await (const event of service.events(threadId)) {
        events.push(event);
        if (event.type === "failed") break;
      }
    })();
    const error = (await service
      .send(threadId, "Paris?")
      .catch((caught: unknown) => caught)) as OutputValidationError;
    await listening;
    expect(error).toBeInstanceOf(OutputValidationError);
    expect(error).toBeInstanceOf(ThreadProcessingError);
    expect(error.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ instancePath: "/celsius", keyword: "type" }),
        expect.objectContaining({ keyword: "additionalProperties", params: { additionalProperty: "wind" } }),
      ]),
    );
    expect(error.output).toBe('{"city":"Paris","celsius":"warm","wind":3}');
    const failed = events.find((event) => event.type === "failed");
    expect(failed?.type === "failed" && failed.error).toBe(error);
    expect(await service.status(threadId)).toBe("failed");
    expect((await service.info(threadId)).lastFailure?.error).toBe("OutputValidationError");
  });

  it("reports an answer that is not JSON", async () => {
    const { service, threadId } = await serviceAnswering("It is sunny.");
    const error = (await service
      .send(threadId, "?")
      .catch((caught: unknown) => caught)) as OutputValidationError;
    expect(error).toBeInstanceOf(OutputValidationError);
    expect(error.errors[0]).toMatchObject({ keyword: "json", instancePath: "" });
  });

  it("reads draft-07 schemas when they say so", async () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "array",
      items: { type: "integer" },
    };
    const { service, threadId } = await serviceAnswering("[1, 2, 3]", schema);
    expect((await service.send(threadId, "count")).output).toEqual([1, 2, 3]);
  });
});
