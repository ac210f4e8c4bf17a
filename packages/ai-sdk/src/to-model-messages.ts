import type { Message } from "@skein/thread-core";
import { convertToModelMessages, type ModelMessage } from "ai";
import { type CallNames, contentToModelPart } from "./content-to-model-part.js";
import { type MessageExtra, messageExtra } from "./namespace.js";
import { toUIMessages } from "./to-ui-messages.js";

/** What `convertToModelMessages` takes beside the messages: `tools`, `ignoreIncompleteToolCalls`, `convertDataPart`. */
export type ToModelMessagesOptions = NonNullable<Parameters<typeof convertToModelMessages>[1]>;

type ModelPart = Exclude<ModelMessage["content"], string>[number];

const TOOL_MESSAGE_PARTS = new Set(["tool-result", "tool-approval-response"]);

/**
 * Skein messages as the model messages `streamText` takes. Messages `fromModelMessages` wrote come back equal;
 * messages `fromUIMessages` wrote go through the SDK's own `convertToModelMessages` (with `options`), so the
 * prompt is the one the SDK builds from the UI messages; any other writer's are read by their contents, leaving
 * out what a model does not take (usage, errors, file ids).
 * @example streamText({ model, messages: await toModelMessages(await thread.view()) })
 */
export async function toModelMessages(
  messages: readonly Message[],
  options?: ToModelMessagesOptions,
): Promise<ModelMessage[]> {
  const modelMessages: ModelMessage[] = [];
  const names: CallNames = new Map();
  let uiRun: Message[] = [];
  const flush = async () => {
    if (uiRun.length === 0) return;
    modelMessages.push(...(await convertToModelMessages(toUIMessages(uiRun), options)));
    uiRun = [];
  };
  for (const message of messages) {
    const extra = messageExtra(message);
    if (extra?.from === "ui") {
      for (const content of message.contents) {
        if (content.type === "function_call") names.set(content.callId as string, content.name as string);
      }
      uiRun.push(message);
      continue;
    }
    await flush();
    const modelMessage = toModelMessage(message, extra, names);
    if (modelMessage) modelMessages.push(modelMessage);
  }
  await flush();
  return modelMessages;
}

function toModelMessage(
  message: Message,
  extra: MessageExtra | undefined,
  names: CallNames,
): ModelMessage | undefined {
  const fromModel = extra?.from === "model";
  const providerOptions =
    fromModel && extra?.providerOptions !== undefined ? { providerOptions: extra.providerOptions } : {};
  let parts = message.contents
    .map((content) => contentToModelPart(content, names))
    .filter((part): part is ModelPart => part !== undefined);
  if (message.role === "tool") parts = parts.filter((part) => TOOL_MESSAGE_PARTS.has(part.type));
  // A message of another writer's that holds nothing a model takes (a usage record) is left out.
  if (!fromModel && parts.length === 0) return undefined;
  if (message.role === "system") {
    const text = parts.map((part) => (part.type === "text" ? part.text : "")).join("");
    return { role: "system", content: text, ...providerOptions } as ModelMessage;
  }
  const onlyText = parts.length === 1 && parts[0]?.type === "text" && Object.keys(parts[0]).length === 2;
  const content = fromModel && extra?.text === true && onlyText ? (parts[0] as { text: string }).text : parts;
  return { role: message.role, content, ...providerOptions } as ModelMessage;
}
