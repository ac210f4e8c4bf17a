import { dotnetMessageToSkein, skeinMessageToDotnet } from "./dotnet-message.js";
import { MafDocumentError } from "./errors.js";
import { isEmptyObject, isJsonObject, type JsonObject } from "./json-value.js";
import type { MessageStamps } from "./message-stamps.js";
import type { ReadSession, SessionParts } from "./python-session.js";

const DOCUMENT = "MAF .NET session";

/** Where MAF .NET's `InMemoryChatHistoryProvider` keeps its state: its type name, the default `StateKey`. */
export const DOTNET_HISTORY_KEY = "InMemoryChatHistoryProvider";

/**
 * Reads a serialized `ChatClientAgentSession` (MAF .NET, ChatClientAgentSession.cs at the fixtures' commit):
 * `{ conversationId?, stateBag? }`, the history provider's messages at `stateBag.<key>.messages`.
 */
export function readDotnetSession(
  document: JsonObject,
  historyKey: string,
  stamps: MessageStamps,
): ReadSession {
  const conversationId = document.conversationId ?? null;
  if (conversationId !== null && typeof conversationId !== "string")
    throw new MafDocumentError(DOCUMENT, ["conversationId"], "conversationId is a string");
  const bag = document.stateBag ?? {};
  if (!isJsonObject(bag)) throw new MafDocumentError(DOCUMENT, ["stateBag"], "stateBag is an object");
  const state: JsonObject = { ...bag };
  const paths: Array<Array<string | number>> = [];
  let messages: JsonObject[] = [];
  const history = bag[historyKey];
  if (history !== undefined) {
    if (!isJsonObject(history))
      throw new MafDocumentError(
        DOCUMENT,
        ["stateBag", historyKey],
        "the history provider's state is an object",
      );
    const list = history.messages ?? [];
    if (!Array.isArray(list))
      throw new MafDocumentError(DOCUMENT, ["stateBag", historyKey, "messages"], "messages is a list");
    messages = list.map((message, index) => {
      const path = ["stateBag", historyKey, "messages", index];
      paths.push(path);
      return dotnetMessageToSkein(message, { document: DOCUMENT, path }, stamps);
    });
    const { messages: _messages, ...rest } = history;
    state[historyKey] = rest;
  }
  return {
    info: { language: "dotnet", document: "session", historyKey },
    state,
    messages,
    paths,
    serviceSessionId: conversationId,
    document: DOCUMENT,
  };
}

/** A serialized `ChatClientAgentSession`: `conversationId` when there is one, `stateBag` when it holds anything. */
export function writeDotnetSession(parts: SessionParts): JsonObject {
  const state: JsonObject = { ...parts.state };
  if (parts.messages.length > 0 || parts.historyKey in state) {
    const entry = isJsonObject(state[parts.historyKey]) ? (state[parts.historyKey] as JsonObject) : {};
    state[parts.historyKey] = {
      messages: parts.messages.map((message) => skeinMessageToDotnet(message)),
      ...entry,
    };
  }
  const conversationId = parts.serviceSessionId;
  if (conversationId !== null && typeof conversationId !== "string")
    throw new MafDocumentError(
      DOCUMENT,
      ["conversationId"],
      "MAF .NET keeps a service session id as a string conversationId",
    );
  return {
    ...(conversationId === null ? {} : { conversationId }),
    ...(isEmptyObject(state) ? {} : { stateBag: state }),
  };
}
