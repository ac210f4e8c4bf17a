import { type Content, type Message, UnsupportedOperationError } from "@skein/thread-core";
import { SOURCE } from "../errors.js";

/** An item as the conversations and responses APIs take it as input. */
export type InputItem = Record<string, unknown> & { type: string };

type Part = Record<string, unknown> & { type: string };

/**
 * Contents that describe a model call rather than the conversation (`reasoning` is bound to the response
 * that made it; `usage` and `error` are bookkeeping): not sent, by design and as documented.
 */
const NOT_SENT: ReadonlySet<string> = new Set(["reasoning", "usage", "error"]);

/**
 * The input items for one skein message, in order: its text and media as one message item, each function
 * call and result as its own item. Throws `UnsupportedOperationError` before anything is sent if a content
 * has no item form for its role. Only role and contents are stored: ids, authors and metadata are Foundry's.
 */
export function messageToItems(message: Message, type: string): InputItem[] {
  const items: InputItem[] = [];
  let parts: Part[] = [];
  const flush = () => {
    if (parts.length > 0) items.push(messageItem(message.role, parts));
    parts = [];
  };
  for (const content of message.contents) {
    if (content.type === "function_call") {
      flush();
      items.push(functionCallItem(content, message, type));
    } else if (content.type === "function_result") {
      flush();
      items.push(functionResultItem(content));
    } else if (content.type === "foundry.item") {
      flush();
      items.push(content.item as InputItem);
    } else if (content.type === "error" && content.code === "refusal" && message.role === "assistant") {
      parts.push({ type: "refusal", refusal: content.message });
    } else if (!NOT_SENT.has(content.type)) {
      const part = partOf(content, message.role, type);
      if (part) parts.push(part);
      else {
        flush();
        items.push(replayedItem(content, type));
      }
    }
  }
  flush();
  return items;
}

/** A hosted tool call (web search, MCP, …) read from a conversation keeps its item id and is replayed whole. */
function replayedItem(content: Content, type: string): InputItem {
  if (typeof content.id === "string") return { ...content } as InputItem;
  throw unsupported(type, `"${content.type}" contents`, "Foundry conversations have no item for them.");
}

function messageItem(role: Message["role"], parts: Part[]): InputItem {
  const [only] = parts;
  // One text part goes as a plain string, the form every role accepts.
  const content = parts.length === 1 && only && typeof only.text === "string" ? only.text : parts;
  return { type: "message", role, content };
}

function functionCallItem(content: Content, message: Message, type: string): InputItem {
  if (message.role !== "assistant")
    throw unsupported(
      type,
      `function calls in ${message.role} messages`,
      "only assistant messages make calls.",
    );
  const args = content.arguments;
  return {
    type: "function_call",
    call_id: content.callId,
    name: content.name,
    arguments: typeof args === "string" ? args : JSON.stringify(args),
  };
}

function functionResultItem(content: Content): InputItem {
  const result = content.isError === true ? { error: content.result } : content.result;
  return {
    type: "function_call_output",
    call_id: content.callId,
    output: typeof result === "string" ? result : JSON.stringify(result),
  };
}

/** The message part for a content, or undefined for contents that are whole items of their own. */
function partOf(content: Content, role: Message["role"], type: string): Part | undefined {
  if (content.type === "text") {
    if (role === "tool")
      throw unsupported(type, "text in tool messages", "tool messages carry function results only.");
    return { type: role === "assistant" ? "output_text" : "input_text", text: content.text };
  }
  if (content.type !== "uri" && content.type !== "file" && content.type !== "data") return undefined;
  if (role === "assistant" || role === "tool") {
    throw unsupported(
      type,
      `${content.type} contents in ${role} messages`,
      "Foundry takes media only in user and system messages.",
    );
  }
  const image = typeof content.mediaType === "string" && content.mediaType.startsWith("image/");
  if (content.type === "uri")
    return image
      ? { type: "input_image", image_url: content.uri }
      : { type: "input_file", file_url: content.uri };
  if (content.type === "file")
    return image
      ? { type: "input_image", file_id: content.fileId }
      : { type: "input_file", file_id: content.fileId };
  const dataUrl = `data:${content.mediaType};base64,${content.data}`;
  const filename = typeof content.name === "string" ? content.name : "attachment";
  return image
    ? { type: "input_image", image_url: dataUrl }
    : { type: "input_file", file_data: dataUrl, filename };
}

function unsupported(type: string, capability: string, detail: string): UnsupportedOperationError {
  return new UnsupportedOperationError(type, capability, `${detail} Nothing was written.`, {
    source: SOURCE,
  });
}
