import type { AgentInputItem } from "@openai/agents-core";
import type { Content, JsonValue, Message, MessageInput, Role } from "@skein/thread-core";
import { SessionItemError } from "./session-errors.js";
import { contentReference, decodeValue, encodeValue, isWrapped } from "./stored-values.js";

/**
 * Where a message keeps the item it was made from, encoded (`encodeValue`), so the session gives back
 * exactly what it was given; the message's contents say the same in skein's own types for every other reader.
 */
export const ITEM_KEY = "openaiAgentsItem";

type Item = Record<string, unknown>;

/**
 * A session item as a skein message: skein contents for other readers, and the item itself for the session,
 * where every text, arguments and output the contents hold is a reference to its content, so it is stored once.
 */
export function itemToMessage(item: AgentInputItem): MessageInput {
  const source = item as unknown as Item;
  const stored = encodeValue(item) as Item;
  const contents: Content[] = [];
  /** Adds a content; the stored item refers to it in place of `field` of `into` (unless `into` was wrapped). */
  const add = (content: Content, into?: unknown, field?: string) => {
    contents.push(content);
    if (into && field && !isWrapped(into)) (into as Item)[field] = contentReference(contents.length - 1);
  };
  const top = isWrapped(stored) ? undefined : stored;
  switch (source.type ?? "message") {
    case "message":
      if (typeof source.content === "string") add({ type: "text", text: source.content }, top, "content");
      else {
        asArray(source.content).forEach((part, index) => {
          const into = top && asArray(top.content)[index];
          for (const [content, field] of partContents(part as Item)) add(content, into, field);
        });
      }
      break;
    case "function_call":
      add(
        {
          type: "function_call",
          callId: String(source.callId),
          name: String(source.name),
          arguments: parsedArguments(source.arguments),
        },
        typeof source.arguments === "string" ? top : undefined,
        "arguments",
      );
      break;
    case "function_call_result":
      add(
        {
          type: "function_result",
          callId: String(source.callId),
          result: encodeValue(source.output) as JsonValue,
          ...(source.status === "incomplete" ? { isError: true } : {}),
        } as Content,
        top,
        "output",
      );
      break;
    case "reasoning":
      for (const key of ["content", "rawContent"]) {
        asArray(source[key]).forEach((part, index) => {
          const text = (part as Item).text;
          if (typeof text === "string")
            add({ type: "reasoning", text }, top && asArray(top[key])[index], "text");
        });
      }
      break;
  }
  return { role: roleOf(source), contents, metadata: { [ITEM_KEY]: stored } } as MessageInput;
}

/** The items a message stands for: the session's own item, or items made from another writer's contents. */
export function messageToItems(message: Message): AgentInputItem[] {
  const stored = message.metadata?.[ITEM_KEY];
  if (stored !== undefined && stored !== null && typeof stored === "object") {
    return [decodeValue(stored, (index) => referenced(message.contents[index])) as AgentInputItem];
  }
  return itemsFromContents(message);
}

/** What a content reference stands for: the text, the arguments as the model wrote them, or the output. */
function referenced(content: Content | undefined): unknown {
  const part = (content ?? {}) as Item;
  if (content?.type === "text" || content?.type === "reasoning") return part.text;
  if (content?.type === "function_call") {
    return typeof part.arguments === "string" ? part.arguments : JSON.stringify(part.arguments);
  }
  if (content?.type === "function_result") return decodeValue(part.result);
  throw new SessionItemError([], "refers to a content the message does not hold");
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

/** A message part's contents, each with the field of the part it stands for (none for files and images). */
function partContents(part: Item): Array<[Content, string | undefined]> {
  switch (part.type) {
    case "input_text":
    case "output_text":
      return typeof part.text === "string" ? [[{ type: "text", text: part.text }, "text"]] : [];
    case "refusal":
      return typeof part.refusal === "string" ? [[{ type: "text", text: part.refusal }, "refusal"]] : [];
    case "input_image":
      return reference(part.image, "image").map((content) => [content, undefined]);
    case "input_file":
      return reference(
        part.file,
        undefined,
        typeof part.filename === "string" ? part.filename : undefined,
      ).map((content) => [content, undefined]);
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
