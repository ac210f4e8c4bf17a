import type { Message } from "@skein/thread-core";
import { normalizeMessage } from "@skein/thread-core/driver";
import type { ModelMessage } from "ai";
import { MessageMappingError } from "./errors.js";
import { modelPartToContent } from "./model-part-to-content.js";
import { EXTRA, isRecord, type MessageExtra, toJson } from "./namespace.js";

const MODEL_ROLES = new Set(["system", "user", "assistant", "tool"]);

/**
 * AI SDK model messages (what `streamText` takes and `response.messages` gives) as skein messages with new
 * sortable ids: tool calls and results as `function_call` / `function_result`, so every skein reader understands
 * them, and what skein has no field for kept so that `toModelMessages` gives them back equal.
 * @example await thread.append(fromModelMessages((await result.response).messages))
 */
export function fromModelMessages(modelMessages: readonly ModelMessage[]): Message[] {
  return modelMessages.map((modelMessage, index) => {
    if (!isRecord(modelMessage) || !MODEL_ROLES.has(modelMessage.role)) {
      throw new MessageMappingError("a model message needs a role (system, user, assistant, tool)", [index]);
    }
    const { role, content, providerOptions } = modelMessage;
    const extra: MessageExtra = { from: "model" };
    if (providerOptions !== undefined) extra.providerOptions = toJson(providerOptions);
    if (typeof content === "string" && role !== "system") extra.text = true;
    const contents =
      typeof content === "string"
        ? [{ type: "text", text: content }]
        : Array.isArray(content)
          ? content.map((part, partIndex) => modelPartToContent(part, [index, "content", partIndex]))
          : undefined;
    if (!contents)
      throw new MessageMappingError("content must be a string or an array of parts", [index, "content"]);
    return normalizeMessage({ role, contents, metadata: { [EXTRA]: toJson(extra) } }, [index]);
  });
}
