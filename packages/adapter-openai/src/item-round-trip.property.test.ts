import type { Message } from "@skein/thread-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { itemToMessage, type ServiceItem } from "./item-to-message.js";
import { messageToItems } from "./message-to-items.js";
import { replayItem } from "./replay-item.js";

const at = "2026-11-21T22:39:36.000Z";
const model = { kind: "model" } as const;
const safeText = fc.string().filter((text) => !/^\s*[[{]/.test(text));
const jsonObject = fc
  .dictionary(fc.string(), fc.jsonValue())
  .map((value) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>)
  .filter((value) => !JSON.stringify(value).includes('"__proto__"'));

const messageItem = fc.constantFrom("user", "system", "assistant").chain((role) =>
  fc.record({
    id: fc.constant("msg_1"),
    type: fc.constant("message"),
    role: fc.constant(role),
    status: fc.constant("completed"),
    content: fc.array(
      fc
        .string()
        .map((text) =>
          role === "assistant"
            ? { type: "output_text", text, annotations: [] }
            : { type: "input_text", text },
        ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
);
const callItem = fc.record({
  id: fc.constant("fc_1"),
  type: fc.constant("function_call"),
  status: fc.constant("completed"),
  call_id: fc.string({ minLength: 1 }),
  name: fc.string({ minLength: 1 }),
  arguments: jsonObject.map((value) => JSON.stringify(value)),
});
const outputItem = fc.record({
  id: fc.constant("fco_1"),
  type: fc.constant("function_call_output"),
  status: fc.constant("completed"),
  call_id: fc.string({ minLength: 1 }),
  output: fc.oneof(
    safeText,
    jsonObject.map((value) => JSON.stringify(value)),
  ),
});
const unknownItem = fc.record({
  id: fc.string({ minLength: 1 }),
  type: fc.constantFrom("web_search_call", "mcp_call", "image_generation_call", "x_future_item"),
  payload: fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown),
});

describe("item mapping round trips", () => {
  it("service item → skein message → service item gives the item back (less the server's own fields)", () => {
    fc.assert(
      fc.property(fc.oneof(messageItem, callItem, outputItem, unknownItem), (item) => {
        const message = itemToMessage(item as ServiceItem, at);
        expect(messageToItems(message, model)).toEqual([replayItem(item as ServiceItem)]);
      }),
    );
  });

  it("skein message → service items → skein messages keeps every content, one message per item", () => {
    const content = fc.oneof(
      fc.record({ type: fc.constant("text"), text: fc.string() }),
      fc.record({
        type: fc.constant("function_call"),
        callId: fc.string({ minLength: 1 }),
        name: fc.string({ minLength: 1 }),
        arguments: jsonObject,
      }),
      fc.record({
        type: fc.constant("function_result"),
        callId: fc.string({ minLength: 1 }),
        result: safeText,
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom("user", "assistant") as fc.Arbitrary<"user" | "assistant">,
        fc.array(content, { maxLength: 5 }),
        (role, contents) => {
          const message: Message = { id: "m", role, createdAt: at, contents };
          const stored = messageToItems(message, { kind: "store", threadType: "openai.conversation" }).map(
            (item, index) => ({ ...item, id: `item_${index}`, status: "completed" }) as ServiceItem,
          );
          const back = stored.flatMap((item) => itemToMessage(item, at).contents);
          expect(back).toEqual(contents);
        },
      ),
    );
  });
});
