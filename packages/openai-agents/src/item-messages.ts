import type { AgentInputItem } from "@openai/agents-core";
import type { Content, JsonValue, Message, MessageInput, Role } from "@skein/thread-core";
import { decodeValue, encodeValue } from "./stored-values.js";

/**
 * Where a message keeps the item it was made from, encoded (`encodeValue`), so the session gives back
 * exactly what it was given; the message's contents say the same in skein's own types for every other reader.
 */
export const ITEM_KEY = "openaiAgentsItem";

type Item = Record<string, unknown>;

/** A session item as a skein message: skein contents for other readers, the item itself for the session. */
export function itemToMessage(item: AgentInputItem): MessageInput {
  const encoded = encodeValue(item) as Item;
  return {
    role: roleOf(item as unknown as Item),
    contents: contentsOf(item as unknown as Item),
    metadata: { [ITEM_KEY]: encoded },
  } as MessageInput;
}

/** The items a message stands for: the session's own item, or items made from another writer's contents. */
export function messageToItems(message: Message): AgentInputItem[] {
  const stored = message.metadata?.[ITEM_KEY];
  if (stored !== undefined && stored !== null && typeof stored === "object") {
    return [decodeValue(stored) as AgentInputItem];
  }
  return itemsFromContents(message);
}

function roleOf(item: Item): Role {
  const type = item.type ?? "message";
  if (type === "message") {
    if (item.role === "user") return "user";
    if (item.role === "system" || item.role === "developer") return "system";
    return "assistant";
  }
  return typeof type === "string" && type.endsWith("_result") ? "tool" : "assistant";
}

/** The item in skein content types, as far as they reach (text, reasoning, calls, results, files, images). */
function contentsOf(item: Item): Content[] {
  switch (item.type ?? "message") {
    case "message":
      return typeof item.content === "string"
        ? [{ type: "text", text: item.content }]
        : asArray(item.content).flatMap((part) => partContents(part as Item));
    case "function_call":
      return [
        {
          type: "function_call",
          callId: String(item.callId),
          name: String(item.name),
          arguments: parsedArguments(item.arguments),
        },
      ];
    case "function_call_result":
      return [
        {
          type: "function_result",
          callId: String(item.callId),
          result: encodeValue(item.output) as JsonValue,
          ...(item.status === "incomplete" ? { isError: true } : {}),
        } as Content,
      ];
    case "reasoning":
      return [...asArray(item.content), ...asArray(item.rawContent)].flatMap((part) =>
        typeof (part as Item).text === "string"
          ? [{ type: "reasoning", text: (part as Item).text as string }]
          : [],
      );
    default:
      return [];
  }
}

function partContents(part: Item): Content[] {
  switch (part.type) {
    case "input_text":
    case "output_text":
      return [{ type: "text", text: String(part.text) }];
    case "refusal":
      return [{ type: "text", text: String(part.refusal) }];
    case "input_image":
      return reference(part.image, "image");
    case "input_file":
      return reference(part.file, undefined, typeof part.filename === "string" ? part.filename : undefined);
    default:
      return [];
  }
}

/** An image or file as the SDK names it: a data URL, a URL, or a stored file's id. */
function reference(value: unknown, kind?: "image", name?: string): Content[] {
  if (typeof value === "string") {
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(value);
    if (data) return [{ type: "data", mediaType: data[1] as string, data: data[2] as string }];
    return [{ type: "uri", uri: value, ...(kind ? { mediaType: `${kind}/*` } : {}) }];
  }
  const record = (value ?? {}) as Item;
  if (typeof record.id === "string") return [{ type: "file", fileId: record.id, ...(name ? { name } : {}) }];
  if (typeof record.url === "string") return [{ type: "uri", uri: record.url }];
  return [];
}

function parsedArguments(value: unknown): Record<string, unknown> | string {
  if (typeof value !== "string") return String(value ?? "");
  try {
    const parsed = JSON.parse(value);
    // An object reads as one; anything else stays the text the model wrote.
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) && JSON.stringify(parsed) === value
      ? parsed
      : value;
  } catch {
    return value;
  }
}

/** Items for a message another skein writer appended (a runner, a UI, another framework's mapping). */
function itemsFromContents(message: Message): AgentInputItem[] {
  const items: Item[] = [];
  let texts: string[] = [];
  const flush = () => {
    if (texts.length === 0) return;
    if (message.role === "user") {
      items.push({ role: "user", content: texts.map((text) => ({ type: "input_text", text })) });
    } else if (message.role === "system") {
      items.push({ role: "system", content: texts.join("\n") });
    } else {
      items.push({
        role: "assistant",
        status: "completed",
        content: texts.map((text) => ({ type: "output_text", text })),
      });
    }
    texts = [];
  };
  for (const content of message.contents) {
    const part = content as Item;
    if (content.type === "text") texts.push(String(part.text));
    else if (content.type === "function_call") {
      flush();
      items.push({
        type: "function_call",
        callId: part.callId,
        name: part.name,
        arguments: typeof part.arguments === "string" ? part.arguments : JSON.stringify(part.arguments),
        status: "completed",
      });
    } else if (content.type === "function_result") {
      flush();
      items.push({
        type: "function_call_result",
        callId: part.callId,
        name: typeof part.name === "string" ? part.name : "",
        status: "completed",
        output: typeof part.result === "string" ? part.result : JSON.stringify(part.result),
      });
    } else if (content.type === "reasoning") {
      flush();
      items.push({ type: "reasoning", content: [{ type: "input_text", text: String(part.text) }] });
    }
  }
  flush();
  return items as unknown as AgentInputItem[];
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
