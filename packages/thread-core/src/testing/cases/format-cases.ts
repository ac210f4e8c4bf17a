import { SkeinError, ThreadNotFoundError } from "../../errors.js";
import { parseThreadState } from "../../parse-thread-state.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

/** SPEC §2: the JSON format of a store's threads. */
export function formatCases(context: SuiteContext): void {
  conformanceCase(context, "a thread's JSON names its type, version and id", async () => {
    const thread = await context.store.create({ id: "format-1", metadata: { user: "u-7" } });
    const state = JSON.parse(JSON.stringify(thread));
    expect(state.$type).toBe(context.store.nativeType);
    expect(state.$v).toBe(1);
    expect(state.id).toBe("format-1");
    expect(state.metadata).toEqual({ user: "u-7" });
    expect(new Date(state.createdAt).toISOString()).toBe(state.createdAt);
    expect(JSON.stringify(state)).not.toMatch(/password|secret/i);
  });

  conformanceCase(context, "JSON.stringify and store.open round-trip to a working thread", async () => {
    const thread = await context.store.create({ context: { memory: { facts: ["likes tea"] } } });
    await thread.append([
      { role: "user", text: "hi" },
      { role: "assistant", text: "hello" },
    ]);
    const again = await context.store.open(JSON.parse(JSON.stringify(thread)));
    expect(again.id).toBe(thread.id);
    expect(again.type).toBe(thread.type);
    expect(again.context).toEqual({ memory: { facts: ["likes tea"] } });
    expect(await again.messages()).toEqual(await thread.messages());
    await again.append({ role: "user", text: "and again" });
    expect(await thread.messages()).toHaveLength(3);
  });

  conformanceCase(context, "key order never matters", async () => {
    const thread = await context.store.create();
    await thread.append({ role: "user", text: "order" });
    const state = JSON.parse(JSON.stringify(thread)) as Record<string, unknown>;
    const reversed = Object.fromEntries(Object.entries(state).reverse());
    const again = await context.store.open(reversed);
    expect(await again.messages()).toEqual(await thread.messages());
  });

  conformanceCase(context, "fields a reader does not know survive a parse", async () => {
    const thread = await context.store.create();
    const state = { ...JSON.parse(JSON.stringify(thread)), "x-extension": { kept: [1, 2] } };
    const parsed = parseThreadState(state, { registry: context.store.registry }) as Record<string, unknown>;
    expect(parsed["x-extension"]).toEqual({ kept: [1, 2] });
  });

  conformanceCase(context, "unknown content types are kept exactly", async () => {
    const thread = await context.store.create();
    const odd = { type: "x-hologram", frames: [{ at: 0, z: -1 }], nested: { deep: [null, true] } };
    await thread.append({ role: "assistant", contents: [odd, { type: "text", text: "ok", extra: 1 }] });
    const [message] = await thread.messages();
    expect(message?.contents).toEqual([odd, { type: "text", text: "ok", extra: 1 }]);
  });

  conformanceCase(context, "every content type of SPEC §2 round-trips", async () => {
    const thread = await context.store.create();
    const contents = [
      { type: "text", text: "t" },
      { type: "reasoning", text: "r" },
      { type: "function_call", callId: "c1", name: "weather", arguments: { city: "Paris" } },
      { type: "function_call", callId: "c2", name: "raw", arguments: '{"a":1}' },
      { type: "function_result", callId: "c1", result: { temp: 21 }, isError: false },
      { type: "data", mediaType: "image/png", data: "aGVsbG8=" },
      { type: "uri", uri: "https://example.com/a.png", mediaType: "image/png" },
      { type: "file", fileId: "file-1", name: "a.txt", mediaType: "text/plain" },
      { type: "usage", inputTokens: 3, outputTokens: 5, totalTokens: 8 },
      { type: "error", message: "boom", code: "E1" },
    ];
    await thread.append({ role: "assistant", authorName: "planner", contents });
    const again = await context.store.get(thread.id);
    const [message] = await again.messages();
    expect(message?.contents).toEqual(contents);
    expect(message?.authorName).toBe("planner");
  });

  conformanceCase(context, "a state of an unknown type is a typed error, not a crash", async () => {
    const error = await caught(context.store.open({ $type: "acme.nothing", id: "x" }));
    expect(SkeinError.isInstance(error)).toBe(true);
    const missing = await caught(
      context.store.open({
        $type: context.store.nativeType,
        id: "never-created",
        createdAt: new Date().toISOString(),
      }),
    );
    expect(SkeinError.isInstance(missing)).toBe(true);
    if (context.store.nativeType !== "memory") expect(missing).toBeInstanceOf(ThreadNotFoundError);
  });
}
