import type { MessageInputContent, MessageInputContentBlockUnion, ThreadMessage } from "@azure/ai-agents";
import { type Content, type Message, UnsupportedOperationError } from "@skein/thread-core";
import { KNOWN_CONTENT_TYPES, parseMessage } from "@skein/thread-core/driver";
import { SOURCE } from "../errors.js";
import { FOUNDRY_THREAD } from "./agent-thread-state.js";

/** What `messages.create` takes for one skein message. */
export interface ClassicMessageInput {
  role: "user" | "assistant";
  content: MessageInputContent;
}

/** Contents that describe a model call, not the thread (see the README's limits): not sent. */
const NOT_SENT: ReadonlySet<string> = new Set(["reasoning", "usage", "error"]);

/** A classic thread message as a skein message, with the service's id and time. */
export function threadMessageToMessage(message: ThreadMessage): Message {
  return parseMessage({
    id: message.id,
    role: message.role === "assistant" ? "assistant" : "user",
    createdAt: message.createdAt.toISOString(),
    contents: message.content.map(contentOf),
  });
}

function contentOf(block: ThreadMessage["content"][number]): Content {
  const fields = block as unknown as Record<string, unknown>;
  if (block.type === "text") {
    const text = fields.text as { value?: string } | undefined;
    return { type: "text", text: text?.value ?? "" };
  }
  if (block.type === "image_file") {
    const image = fields.imageFile as { fileId?: string } | undefined;
    return { type: "file", fileId: image?.fileId ?? "", mediaType: "image/*" };
  }
  // The SDK keeps only `type` of blocks it does not know; a known name is wrapped so it stays valid.
  return KNOWN_CONTENT_TYPES.has(block.type)
    ? ({ type: "foundry.block", block: fields } as Content)
    : ({ ...fields } as Content);
}

/**
 * The `messages.create` input for a user or assistant message, or undefined when it holds nothing a
 * classic thread stores. Throws `UnsupportedOperationError` before anything is sent for contents a classic
 * thread has no place for.
 */
export function toClassicInput(message: Message): ClassicMessageInput | undefined {
  if (message.role !== "user" && message.role !== "assistant") {
    throw unsupported(
      `${message.role} messages`,
      "classic agent threads hold user and assistant messages; put instructions on the agent or in RunConfig.systemPrompt.",
    );
  }
  const blocks: MessageInputContentBlockUnion[] = [];
  for (const content of message.contents) {
    if (NOT_SENT.has(content.type)) continue;
    blocks.push(blockOf(content, message.role));
  }
  if (blocks.length === 0) return undefined;
  const [only] = blocks;
  const content = blocks.length === 1 && only?.type === "text" ? (only as { text: string }).text : blocks;
  return { role: message.role, content };
}

function blockOf(content: Content, role: string): MessageInputContentBlockUnion {
  if (content.type === "text") return { type: "text", text: content.text } as MessageInputContentBlockUnion;
  const image = typeof content.mediaType === "string" && content.mediaType.startsWith("image/");
  if (image && role === "user") {
    if (content.type === "file")
      return { type: "image_file", imageFile: { fileId: content.fileId as string } };
    if (content.type === "uri") return { type: "image_url", imageUrl: { url: content.uri as string } };
    if (content.type === "data")
      return { type: "image_url", imageUrl: { url: `data:${content.mediaType};base64,${content.data}` } };
  }
  if (content.type === "function_call") {
    throw unsupported(
      "function calls in messages",
      "classic threads record tool calls in run steps; only a run makes them.",
    );
  }
  throw unsupported(
    `"${content.type}" contents${image ? ` in ${role} messages` : ""}`,
    "classic threads store text, and images in user messages.",
  );
}

function unsupported(capability: string, detail: string): UnsupportedOperationError {
  return new UnsupportedOperationError(FOUNDRY_THREAD, capability, `${detail} Nothing was written.`, {
    source: SOURCE,
  });
}
