import type { Content, Message, Role } from "@skein/thread-core";
import { MessageSchema, newSortableId } from "@skein/thread-core/driver";

/** A conversation item, response input item or output item as the service gives it (snake_case). */
export type ServiceItem = Record<string, unknown>;

/** A whole service item of a type skein has no content for (web search calls, MCP calls, …), kept as it is. */
export const ITEM_CONTENT = "openai.item";
/** A part of a message item that skein has no content for (refusals, screenshots, …), kept as it is. */
export const PART_CONTENT = "openai.content";

const ROLES: Readonly<Record<string, Role>> = {
  user: "user",
  assistant: "assistant",
  system: "system",
  developer: "system",
};

/**
 * One skein message for one service item; the message id is the item id. Items carry no timestamps, so
 * `createdAt` is what the caller knows (the response's or the conversation's creation time).
 */
export function itemToMessage(item: ServiceItem, createdAt: string): Message {
  const id = typeof item.id === "string" && item.id.length > 0 ? item.id : newSortableId();
  const known = knownMessage(item, id, createdAt);
  const parsed = known && MessageSchema.safeParse(known);
  if (parsed?.success) return parsed.data;
  // Anything skein cannot express exactly travels whole, and goes back to the service unchanged.
  return { id, role: keptItemRole(item), createdAt, contents: [{ type: ITEM_CONTENT, item }] };
}

/**
 * The role of a message holding a whole item. openai 7's `configuration_update` (a change of the reasoning or
 * text settings within a conversation) is the application's instruction, as a developer message is, so it is a
 * system message; every other kept item (tool calls of the service, …) is the assistant's.
 */
function keptItemRole(item: ServiceItem): Role {
  return item.type === "configuration_update" ? "system" : "assistant";
}

function knownMessage(item: ServiceItem, id: string, createdAt: string): Message | undefined {
  switch (item.type) {
    case "message": {
      const role = ROLES[String(item.role)];
      if (!role) return undefined;
      const parts =
        typeof item.content === "string" ? [{ type: "input_text", text: item.content }] : item.content;
      if (!Array.isArray(parts)) return undefined;
      return { id, role, createdAt, contents: parts.map((part) => partToContent(part as ServiceItem)) };
    }
    case "function_call":
      return {
        id,
        role: "assistant",
        createdAt,
        contents: [
          {
            type: "function_call",
            callId: String(item.call_id),
            name: String(item.name),
            arguments: parseArguments(item.arguments),
          },
        ],
      };
    case "function_call_output":
      return {
        id,
        role: "tool",
        createdAt,
        contents: [
          { type: "function_result", callId: String(item.call_id), result: parseOutput(item.output) },
        ],
      };
    case "reasoning":
      return { id, role: "assistant", createdAt, contents: [reasoningContent(item, id)] };
    default:
      return undefined;
  }
}

function partToContent(part: ServiceItem): Content {
  switch (part.type) {
    case "input_text":
    case "output_text":
    case "text": {
      const annotations =
        Array.isArray(part.annotations) && part.annotations.length > 0 ? part.annotations : [];
      return {
        type: "text",
        text: String(part.text),
        ...(annotations.length > 0 ? { annotations } : {}),
      } as Content;
    }
    case "input_image":
      return imageContent(part) ?? { type: PART_CONTENT, part };
    case "input_file":
      return fileContent(part) ?? { type: PART_CONTENT, part };
    default:
      return { type: PART_CONTENT, part };
  }
}

function imageContent(part: ServiceItem): Content | undefined {
  const detail = typeof part.detail === "string" && part.detail !== "auto" ? { detail: part.detail } : {};
  if (typeof part.file_id === "string")
    return { type: "file", fileId: part.file_id, mediaType: "image/*", ...detail };
  if (typeof part.image_url !== "string") return undefined;
  const data = parseDataUrl(part.image_url);
  if (data) return { type: "data", mediaType: data.mediaType, data: data.data, ...detail };
  return { type: "uri", uri: part.image_url, mediaType: "image/*", ...detail };
}

function fileContent(part: ServiceItem): Content | undefined {
  const name = typeof part.filename === "string" ? { name: part.filename } : {};
  if (typeof part.file_id === "string") return { type: "file", fileId: part.file_id, ...name };
  if (typeof part.file_url === "string") return { type: "uri", uri: part.file_url, ...name };
  const data = typeof part.file_data === "string" ? parseDataUrl(part.file_data) : undefined;
  return data ? { type: "data", mediaType: data.mediaType, data: data.data, ...name } : undefined;
}

function reasoningContent(item: ServiceItem, id: string): Content {
  const texts = (list: unknown) =>
    Array.isArray(list) ? list.map((part) => String((part as ServiceItem).text ?? "")).filter(Boolean) : [];
  const summary = texts(item.summary);
  const text = (summary.length > 0 ? summary : texts(item.content)).join("\n");
  const encrypted =
    typeof item.encrypted_content === "string" ? { encryptedContent: item.encrypted_content } : {};
  return { type: "reasoning", text, itemId: id, ...encrypted };
}

/** Tool arguments arrive as JSON text; an object is easier to use, and other text stays text. */
function parseArguments(value: unknown): Record<string, unknown> | string {
  if (typeof value !== "string") return JSON.stringify(value ?? {});
  try {
    const parsed = JSON.parse(value) as unknown;
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : value;
  } catch {
    return value;
  }
}

/** Tool output is text on the service; text that is a JSON object or array was a structured result. */
function parseOutput(value: unknown): unknown {
  if (typeof value !== "string") return value ?? "";
  const trimmed = value.trimStart();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1] as string, data: match[2] as string } : undefined;
}
