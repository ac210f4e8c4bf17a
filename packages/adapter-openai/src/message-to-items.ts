import { type Content, type Message, UnsupportedOperationError } from "@skein/thread-core";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { SOURCE } from "./errors.js";
import { ITEM_CONTENT, PART_CONTENT, type ServiceItem } from "./item-to-message.js";

/**
 * `"store"`: the items go into the service's history (a conversation, a response chain), so a content it
 * cannot hold is an error. `"model"`: the items are a one-off input (a local thread's view), so such
 * contents are left out.
 */
export type ItemPurpose = { kind: "store"; threadType: string } | { kind: "model" };

/** Contents that describe a run rather than the conversation: they are never sent. */
const RUN_RECORDS = new Set(["usage", "error"]);

/**
 * The service items for one message, in content order: text, images and files gather into message items;
 * each function call, function result and kept service item becomes an item of its own.
 */
export function messageToItems(message: Message, purpose: ItemPurpose): ResponseInputItem[] {
  const items: ServiceItem[] = [];
  let parts: ServiceItem[] = [];
  const flush = () => {
    if (parts.length === 0) return;
    items.push({ type: "message", role: message.role, content: parts });
    parts = [];
  };
  for (const content of message.contents) {
    const part = message.role === "tool" ? undefined : contentToPart(content, message.role);
    if (part) {
      parts.push(part);
      continue;
    }
    const item = contentToItem(content);
    if (item) {
      flush();
      items.push(item);
    } else if (!isSkipped(content)) {
      if (purpose.kind === "store") throw unsupported(purpose.threadType, message, content);
    }
  }
  flush();
  return items as unknown as ResponseInputItem[];
}

/** The items for many messages, in order. */
export function messagesToItems(messages: readonly Message[], purpose: ItemPurpose): ResponseInputItem[] {
  return messages.flatMap((message) => messageToItems(message, purpose));
}

function contentToPart(content: Content, role: Message["role"]): ServiceItem | undefined {
  const detail = typeof content.detail === "string" ? content.detail : "auto";
  switch (content.type) {
    case "text":
      return role === "assistant"
        ? { type: "output_text", text: content.text, annotations: content.annotations ?? [] }
        : { type: "input_text", text: content.text };
    case "data": {
      const url = `data:${content.mediaType};base64,${content.data}`;
      return isImage(content.mediaType)
        ? { type: "input_image", image_url: url, detail }
        : { type: "input_file", file_data: url, filename: content.name ?? "file" };
    }
    case "uri":
      return isImage(content.mediaType)
        ? { type: "input_image", image_url: content.uri, detail }
        : { type: "input_file", file_url: content.uri };
    case "file":
      return isImage(content.mediaType)
        ? { type: "input_image", file_id: content.fileId, detail }
        : {
            type: "input_file",
            file_id: content.fileId,
            ...(content.name ? { filename: content.name } : {}),
          };
    case PART_CONTENT:
      return content.part as ServiceItem;
    default:
      return undefined;
  }
}

function contentToItem(content: Content): ServiceItem | undefined {
  switch (content.type) {
    case "function_call":
      return {
        type: "function_call",
        call_id: content.callId,
        name: content.name,
        arguments:
          typeof content.arguments === "string" ? content.arguments : JSON.stringify(content.arguments),
      };
    case "function_result":
      return { type: "function_call_output", call_id: content.callId, output: outputOf(content.result) };
    case "reasoning":
      // Only reasoning the service encrypted can go back; plain summaries are the model's own notes.
      return typeof content.encryptedContent === "string" && typeof content.itemId === "string"
        ? {
            type: "reasoning",
            id: content.itemId,
            summary: content.text ? [{ type: "summary_text", text: content.text }] : [],
            encrypted_content: content.encryptedContent,
          }
        : undefined;
    case ITEM_CONTENT:
      return content.item as ServiceItem;
    default:
      return undefined;
  }
}

function isSkipped(content: Content): boolean {
  return RUN_RECORDS.has(content.type) || content.type === "reasoning";
}

function outputOf(result: unknown): unknown {
  if (typeof result === "string") return result;
  const parts = Array.isArray(result) && result.length > 0 && result.every(isInputPart);
  return parts ? result : JSON.stringify(result);
}

function isInputPart(value: unknown): boolean {
  const type = (value as ServiceItem | null)?.type;
  return type === "input_text" || type === "input_image" || type === "input_file";
}

function isImage(mediaType: unknown): boolean {
  return typeof mediaType === "string" && mediaType.startsWith("image/");
}

function unsupported(threadType: string, message: Message, content: Content): UnsupportedOperationError {
  const where =
    message.role === "tool" ? `a tool message's "${content.type}" content` : `"${content.type}" contents`;
  return new UnsupportedOperationError(
    threadType,
    `storing ${where}`,
    "OpenAI has no item for it; nothing was written.",
    { source: SOURCE },
  );
}
