import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../message.js";
import { estimateTokens, selectView, type ViewSource } from "./view.js";

type Step = { kind: "text" | "system" | "calls" | "results"; size: number; pick: number };

/** Builds a log from steps: calls open call ids, results answer some open ones, possibly over several messages. */
function buildLog(steps: Step[]): Message[] {
  const open: string[] = [];
  let next = 0;
  return steps.map((step, index) => {
    const base = { id: `m${index}`, createdAt: "2026-01-01T00:00:00.000Z" };
    if (step.kind === "calls") {
      const contents = Array.from({ length: 1 + (step.size % 3) }, () => {
        const callId = `k${next++}`;
        open.push(callId, callId); // each call gets up to two results
        return { type: "function_call" as const, callId, name: "tool", arguments: {} };
      });
      return { ...base, role: "assistant" as const, contents };
    }
    if (step.kind === "results" && open.length > 0) {
      const answered = open.splice(step.pick % open.length, 1 + (step.size % 2));
      const contents = answered.map((callId) => ({
        type: "function_result" as const,
        callId,
        result: "r".repeat(step.size),
      }));
      return { ...base, role: "tool" as const, contents };
    }
    const role = step.kind === "system" ? ("system" as const) : ("user" as const);
    return { ...base, role, contents: [{ type: "text" as const, text: "t".repeat(step.size) }] };
  });
}

function sourceOf(log: Message[]): ViewSource & { reads: number } {
  const source = {
    length: log.length,
    reads: 0,
    systemAt: log.flatMap((message, index) => (message.role === "system" ? [index] : [])),
    read: async (from: number, to: number) => {
      // As a store would: positions are whole numbers.
      if (!Number.isInteger(from) || !Number.isInteger(to)) throw new Error(`read(${from}, ${to})`);
      source.reads += to - from;
      return log.slice(from, to);
    },
  };
  return source;
}

const step = fc.record({
  kind: fc.constantFrom("text", "text", "calls", "results", "results", "system"),
  size: fc.nat(60),
  pick: fc.nat(20),
}) as fc.Arbitrary<Step>;

describe("views", () => {
  it("keep calls and results together, fit the budget, keep order and system messages", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 60 }),
        fc.option(fc.nat(40), { nil: undefined }),
        fc.option(fc.nat(400), { nil: undefined }),
        fc.boolean(),
        async (steps, maxMessages, maxTokens, keepSystem) => {
          const log = buildLog(steps);
          const view = await selectView(sourceOf(log), { maxMessages, maxTokens, keepSystem });
          const positions = view.map((message) => log.indexOf(message));
          expect(positions).toEqual([...positions].sort((a, b) => a - b));
          const kept = new Set(view);
          const callIdsOf = (message: Message, type: string) =>
            message.contents.flatMap((content) => (content.type === type ? [content.callId as string] : []));
          const keptCalls = new Set(view.flatMap((message) => callIdsOf(message, "function_call")));
          for (const message of view) {
            for (const callId of callIdsOf(message, "function_result"))
              expect(keptCalls.has(callId)).toBe(true);
          }
          for (const message of log) {
            if (kept.has(message)) continue;
            for (const callId of callIdsOf(message, "function_result"))
              expect(keptCalls.has(callId)).toBe(false);
          }
          const system = log.filter((message) => message.role === "system");
          if (keepSystem) for (const message of system) expect(kept.has(message)).toBe(true);
          const others = view.filter((message) => !(keepSystem && message.role === "system"));
          const systemCost = keepSystem
            ? system.reduce((sum, message) => sum + estimateTokens(message), 0)
            : 0;
          const systemCount = keepSystem ? system.length : 0;
          if (others.length > 1 || (others.length === 1 && maxTokens === undefined)) {
            const tokens = others.reduce((sum, message) => sum + estimateTokens(message), 0);
            if (maxTokens !== undefined) expect(tokens + systemCost).toBeLessThanOrEqual(maxTokens);
            if (maxMessages !== undefined)
              expect(others.length + systemCount).toBeLessThanOrEqual(maxMessages);
          }
          // The kept part is a suffix of the log: nothing newer than a kept message was dropped.
          const first = others[0];
          if (first) {
            const tail = log
              .slice(log.indexOf(first))
              .filter((message) => !(keepSystem && message.role === "system"));
            expect(others).toEqual(tail);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reads only what it returns from a long log", async () => {
    const log = buildLog(Array.from({ length: 100_000 }, () => ({ kind: "text", size: 10, pick: 0 })));
    const source = sourceOf(log);
    const view = await selectView(source, { maxMessages: 20 });
    expect(view).toHaveLength(20);
    expect(source.reads).toBe(20);
    // A budget that is not a whole number still reads whole positions and keeps what fits.
    const fractional = sourceOf(log.slice(0, 10));
    expect((await selectView(fractional, { maxMessages: 2.5 })).map((message) => message.id)).toEqual([
      "m8",
      "m9",
    ]);
    const byTokens = sourceOf(log);
    expect(await selectView(byTokens, { maxTokens: 200 })).toHaveLength(28);
    expect(byTokens.reads).toBeLessThan(100);
  });

  it("keeps system messages in log order when a source lists their positions out of order", async () => {
    const log = buildLog(
      ["system", "text", "system", "text", "text"].map((kind) => ({ kind, size: 1, pick: 0 }) as Step),
    );
    const source = { ...sourceOf(log), systemAt: [2, 0] };
    const ids = (view: Message[]) => view.map((message) => message.id);
    expect(ids(await selectView(source))).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    expect(ids(await selectView(source, { maxMessages: 3 }))).toEqual(["m0", "m2", "m4"]);
  });

  it("estimates about four characters a token plus four a message", () => {
    const message = {
      id: "m",
      role: "user",
      createdAt: "",
      contents: [{ type: "text", text: "x".repeat(400) }],
    } as Message;
    expect(estimateTokens(message)).toBe(104);
  });
});

describe("the budget rule with tool pairs (as the README states it)", () => {
  const at = "2026-01-01T00:00:00.000Z";
  const text = (id: string, role: Message["role"], size = 4): Message => ({
    id,
    role,
    createdAt: at,
    contents: [{ type: "text", text: "t".repeat(size) }],
  });
  const call = (id: string, ...callIds: string[]): Message => ({
    id,
    role: "assistant",
    createdAt: at,
    contents: callIds.map((callId) => ({ type: "function_call", callId, name: "tool", arguments: {} })),
  });
  const result = (id: string, callId: string, size = 4): Message => ({
    id,
    role: "tool",
    createdAt: at,
    contents: [{ type: "function_result", callId, result: "r".repeat(size) }],
  });
  const ids = async (log: Message[], options: Parameters<typeof selectView>[1]) =>
    (await selectView(sourceOf(log), options)).map((message) => message.id);

  it("counts system messages first and keeps them even over the budget", async () => {
    const log = [text("s1", "system"), text("s2", "system"), text("u", "user")];
    expect(await ids(log, { maxMessages: 2 })).toEqual(["s1", "s2"]);
    expect(await ids(log, { maxMessages: 1 })).toEqual(["s1", "s2"]);
    expect(await ids(log, { maxMessages: 1, keepSystem: false })).toEqual(["u"]);
  });

  it("drops a result whose call does not fit, with everything older, leaving the budget part unused", async () => {
    const log = [
      text("s", "system"),
      text("u", "user"),
      call("c", "k1"),
      result("r", "k1"),
      text("a", "assistant"),
    ];
    // Room for three: s, a and r fit, the call does not, so r goes too and the view holds two.
    expect(await ids(log, { maxMessages: 3 })).toEqual(["s", "a"]);
    expect(await ids(log, { maxMessages: 4 })).toEqual(["s", "c", "r", "a"]);
    // The same cut by tokens: a budget that fits s, a and r but not the call.
    const cost = (id: string) => estimateTokens(log.find((message) => message.id === id) as Message);
    const all = cost("s") + cost("u") + cost("c") + cost("r") + cost("a");
    expect(await ids(log, { maxTokens: cost("s") + cost("a") + cost("r") })).toEqual(["s", "a"]);
    expect(await ids(log, { maxTokens: all - cost("u") })).toEqual(["s", "c", "r", "a"]);
  });

  it("keeps a call with all its results: parallel results are dropped together when the call does not fit", async () => {
    const log = [text("u", "user"), call("c", "k1", "k2"), result("r1", "k1"), result("r2", "k2")];
    expect(await ids(log, { maxMessages: 2 })).toEqual([]);
    expect(await ids(log, { maxMessages: 3 })).toEqual(["c", "r1", "r2"]);
  });

  it("sends a newest message over the token budget alone only when it is whole by itself", async () => {
    const big = [text("s", "system"), text("u1", "user"), text("u2", "user", 400)];
    expect(await ids(big, { maxTokens: 20 })).toEqual(["s", "u2"]);
    // A newest result whose call is older is not whole: the view is the system messages only.
    const bigResult = [text("s", "system"), call("c", "k1"), result("r", "k1", 400)];
    expect(await ids(bigResult, { maxTokens: 20 })).toEqual(["s"]);
    // maxMessages still counts: with no room left after the system messages, nothing else is sent.
    expect(await ids(big, { maxTokens: 20, maxMessages: 1 })).toEqual(["s"]);
  });
});
