import type { Message } from "@skein/thread-core";
import { normalizeMessage } from "@skein/thread-core/driver";
import type { UIMessage } from "ai";
import { withoutVersions } from "./chat-branches.js";
import { MessageMappingError } from "./errors.js";
import { EXTRA, isRecord, type MessageExtra, toJson } from "./namespace.js";
import { uiPartsToContents } from "./ui-part-to-contents.js";

const UI_ROLES = new Set(["system", "user", "assistant"]);

/**
 * AI SDK UI messages as skein messages, one each under the same id: text, reasoning and files as skein's own
 * contents, a tool part as a `function_call` and its `function_result`, everything else kept so that
 * `toUIMessages` gives the UI messages back equal.
 * @example await thread.append(fromUIMessages(messages))
 */
export function fromUIMessages(uiMessages: readonly UIMessage[]): Message[] {
  return uiMessages.map((uiMessage, index) => fromUIMessage(uiMessage, index));
}

function fromUIMessage(uiMessage: UIMessage, index: number): Message {
  if (!isRecord(uiMessage) || !UI_ROLES.has(uiMessage.role) || !Array.isArray(uiMessage.parts)) {
    throw new MessageMappingError("a UI message needs an id, a role (system, user, assistant) and parts", [
      index,
    ]);
  }
  if (typeof uiMessage.id !== "string" || uiMessage.id.length === 0) {
    throw new MessageMappingError("a UI message needs a non-empty string id", [index, "id"]);
  }
  const extra: MessageExtra = { from: "ui" };
  // What loadChat adds under metadata.skein ({ index, count } of versions) is read from the thread, never stored.
  const metadata = withoutVersions(uiMessage.metadata);
  if (metadata !== undefined) extra.metadata = toJson(metadata);
  return normalizeMessage(
    {
      id: uiMessage.id,
      role: uiMessage.role,
      contents: uiPartsToContents(uiMessage.parts, [index, "parts"]),
      metadata: { [EXTRA]: toJson(extra) },
    },
    [index],
  );
}
