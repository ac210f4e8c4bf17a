import type { Content, Message, Role } from "@skein/thread-core";
import { KNOWN_CONTENT_TYPES, parseMessage } from "@skein/thread-core/driver";

/** A conversation item or response output item as the service sends it: snake_case, `type` first. */
export interface ConversationItem {
  id: string;
  type: string;
  [field: string]: unknown;
}

type Part = Record<string, unknown> & { type?: unknown };

/**
 * One conversation item as one skein message with the item's id. Items carry no timestamp, so `createdAt`
 * is the item's `created_at` when the service gives one, else `fallbackCreatedAt` (the conversation's).
 */
export function itemToMessage(item: ConversationItem, fallbackCreatedAt: string): Message {
  const createdAt =
    typeof item.created_at === "number" ? new Date(item.created_at * 1000).toISOString() : fallbackCreatedAt;
  const [role, contents] = rolesAndContents(item);
  return parseMessage({ id: item.id, role, createdAt, contents });
}

function rolesAndContents(item: ConversationItem): [Role, Content[]] {
  switch (item.type) {
    case "message":
      return [messageRole(item.role), partsOf(item.content).map(partToContent)];
    case "function_call":
      return [
        "assistant",
        [
          {
            type: "function_call",
            callId: String(item.call_id),
            name: String(item.name),
            arguments: parseArguments(item.arguments),
          },
        ],
      ];
    case "function_call_output":
      return [
        "tool",
        [{ type: "function_result", callId: String(item.call_id), result: (item.output ?? "") as string }],
      ];
    case "reasoning":
      return ["assistant", [{ type: "reasoning", text: summaryText(item.summary) }]];
    default:
      // Hosted tool calls (web search, file search, MCP, …): kept whole so a fork can replay them.
      return ["assistant", [keptWhole(item)]];
  }
}

function messageRole(role: unknown): Role {
  if (role === "user" || role === "assistant" || role === "system") return role;
  return role === "developer" ? "system" : "user";
}

function partsOf(content: unknown): Part[] {
  if (typeof content === "string") return [{ type: "input_text", text: content }];
  return Array.isArray(content) ? (content as Part[]) : [];
}

function partToContent(part: Part): Content {
  switch (part.type) {
    case "input_text":
    case "output_text": {
      const annotations =
        Array.isArray(part.annotations) && part.annotations.length > 0
          ? { annotations: part.annotations }
          : {};
      return { type: "text", text: String(part.text ?? ""), ...annotations } as Content;
    }
    case "refusal":
      return { type: "error", message: String(part.refusal ?? ""), code: "refusal" };
    case "input_image":
      return imageContent(part);
    case "input_file":
      return fileContent(part);
    default:
      return keptWhole(part);
  }
}

function imageContent(part: Part): Content {
  if (typeof part.file_id === "string") return { type: "file", fileId: part.file_id, mediaType: "image/*" };
  const url = String(part.image_url ?? "");
  return dataUrlContent(url) ?? { type: "uri", uri: url, mediaType: "image/*" };
}

function fileContent(part: Part): Content {
  const name = typeof part.filename === "string" ? { name: part.filename } : {};
  if (typeof part.file_id === "string") return { type: "file", fileId: part.file_id, ...name };
  if (typeof part.file_data === "string") {
    const data = dataUrlContent(part.file_data);
    if (data) return { ...data, ...name } as Content;
  }
  if (typeof part.file_url === "string") return { type: "uri", uri: part.file_url };
  return keptWhole(part);
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function dataUrlContent(url: string): Content | undefined {
  const match = DATA_URL.exec(url);
  return match ? { type: "data", mediaType: match[1] as string, data: match[2] as string } : undefined;
}

function parseArguments(value: unknown): Record<string, unknown> | string {
  if (typeof value !== "string")
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : "";
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : value;
  } catch {
    return value;
  }
}

function summaryText(summary: unknown): string {
  if (!Array.isArray(summary)) return "";
  return summary
    .map((part) => (typeof (part as Part).text === "string" ? ((part as Part).text as string) : ""))
    .filter(Boolean)
    .join("\n");
}

/** A part or item skein has no content type for, kept as it came; wrapped if its type name is taken. */
function keptWhole(value: Part): Content {
  const type = typeof value.type === "string" && value.type !== "" ? value.type : "foundry.item";
  if (KNOWN_CONTENT_TYPES.has(type) || type === "foundry.item")
    return { type: "foundry.item", item: value } as Content;
  return { ...value, type } as Content;
}
