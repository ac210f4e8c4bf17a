import type { Message, MessageInput } from "../../message.js";
import { expect } from "../expect.js";
import { conformanceCase, type SuiteContext } from "../suite-context.js";

const call = (id: string, callId: string): MessageInput => ({
  id,
  role: "assistant",
  contents: [{ type: "function_call", callId, name: "tool", arguments: {} }],
});
const result = (id: string, callId: string): MessageInput => ({
  id,
  role: "tool",
  contents: [{ type: "function_result", callId, result: "ok" }],
});
const text = (id: string, role: "user" | "assistant" | "system" = "user"): MessageInput => ({
  id,
  role,
  text: id,
});
const ids = (messages: Message[]) => messages.map((message) => message.id);
const one = () => 1;

/** SPEC §4: views fit a budget, keep tool calls whole and keep system messages. */
export function viewCases(context: SuiteContext): void {
  conformanceCase(context, "a view keeps system messages and the newest messages that fit", async () => {
    const thread = await context.store.create();
    await thread.append([
      text("sys", "system"),
      text("u1"),
      text("a1", "assistant"),
      text("u2"),
      text("a2", "assistant"),
    ]);
    expect(ids(await thread.view({ maxMessages: 3 }))).toEqual(["sys", "u2", "a2"]);
    expect(ids(await thread.view({ maxMessages: 2, keepSystem: false }))).toEqual(["u2", "a2"]);
    expect(ids(await thread.view({ maxTokens: 2, countTokens: one }))).toEqual(["sys", "a2"]);
    expect(ids(await thread.view())).toEqual(["sys", "u1", "a1", "u2", "a2"]);
  });

  conformanceCase(context, "a view never splits a call from its results", async () => {
    const thread = await context.store.create();
    await thread.append([
      text("u1"),
      call("c1", "k1"),
      text("between", "assistant"),
      result("r1", "k1"),
      {
        id: "both",
        role: "assistant",
        contents: [
          { type: "function_call", callId: "k2", name: "a", arguments: {} },
          { type: "function_call", callId: "k3", name: "b", arguments: {} },
        ],
      },
      result("r2", "k2"),
      result("r3", "k3"),
      text("last", "assistant"),
    ]);
    // Three messages would start at r2, whose call is in "both": the view shrinks to a whole cut instead.
    expect(ids(await thread.view({ maxMessages: 3 }))).toEqual(["last"]);
    expect(ids(await thread.view({ maxMessages: 4 }))).toEqual(["both", "r2", "r3", "last"]);
    // Five would start at r1 without c1: the cut falls after it.
    expect(ids(await thread.view({ maxMessages: 5 }))).toEqual(["both", "r2", "r3", "last"]);
    expect(ids(await thread.view({ maxMessages: 7 }))).toEqual([
      "c1",
      "between",
      "r1",
      "both",
      "r2",
      "r3",
      "last",
    ]);
  });

  conformanceCase(context, "a single message over the budget is sent alone", async () => {
    const thread = await context.store.create();
    await thread.append([text("small"), { id: "huge", role: "user", text: "x".repeat(4000) }]);
    expect(ids(await thread.view({ maxTokens: 50 }))).toEqual(["huge"]);
  });

  conformanceCase(
    context,
    "a view of the newest messages of a long thread reads only those",
    async () => {
      const thread = await context.store.create();
      await thread.append(text("sys", "system"));
      for (let batch = 0; batch < 10; batch++) {
        await thread.append(Array.from({ length: 200 }, (_, index) => text(`m${batch * 200 + index}`)));
      }
      const view = await thread.view({ maxMessages: 21 });
      expect(ids(view)).toEqual(["sys", ...Array.from({ length: 20 }, (_, index) => `m${1980 + index}`)]);
    },
    60_000,
  );
}
