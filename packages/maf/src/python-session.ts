import { MafDocumentError } from "./errors.js";
import { isJsonObject, type Json, type JsonObject } from "./json-value.js";
import type { MafThreadInfo } from "./maf-thread-info.js";
import type { MessageStamps } from "./message-stamps.js";
import { pythonMessageToSkein, skeinMessageToPython } from "./python-message.js";

const DOCUMENT = "MAF Python session";

/** Where MAF Python's `InMemoryHistoryProvider` keeps its messages (its default `source_id`). */
export const PYTHON_HISTORY_KEY = "in_memory";

/** A MAF Python session as read: its messages, the rest of its state, and what to write it back with. */
export interface ReadSession {
  info: MafThreadInfo;
  /** The state entries, in order; the history entry without its messages. */
  state: JsonObject;
  messages: JsonObject[];
  paths: Array<Array<string | number>>;
  serviceSessionId: Json;
  document: string;
}

/**
 * Reads `AgentSession.to_dict()` or a `FileSessionStore` file as MAF does: `session_id` required, unknown
 * top-level keys ignored; a file (it has `version`) also needs version "1.0", `type` "session" and a
 * `service_session_id`. Messages are checked as `Message.from_dict` checks them.
 */
export function readPythonSession(
  document: JsonObject,
  historyKey: string,
  stamps: MessageStamps,
): ReadSession {
  const isFile = document.version !== undefined;
  if (!("session_id" in document))
    throw new MafDocumentError(
      DOCUMENT,
      ["session_id"],
      "'session_id' is required (AgentSession.from_dict raises KeyError)",
    );
  const sessionId = document.session_id;
  if (typeof sessionId !== "string")
    throw new MafDocumentError(DOCUMENT, ["session_id"], "session_id is a string");
  if (isFile) {
    if (document.version !== "1.0")
      throw new MafDocumentError(
        DOCUMENT,
        ["version"],
        `unsupported session snapshot version ${JSON.stringify(document.version)}; MAF reads "1.0"`,
      );
    if (document.type !== "session")
      throw new MafDocumentError(
        DOCUMENT,
        ["type"],
        `a FileSessionStore snapshot has type "session", not ${JSON.stringify(document.type)}`,
      );
    if (!("service_session_id" in document))
      throw new MafDocumentError(
        DOCUMENT,
        ["service_session_id"],
        "a FileSessionStore snapshot has service_session_id (null when there is none)",
      );
  }
  const serviceSessionId = document.service_session_id ?? null;
  if (serviceSessionId !== null && typeof serviceSessionId !== "string" && !isJsonObject(serviceSessionId))
    throw new MafDocumentError(
      DOCUMENT,
      ["service_session_id"],
      "service_session_id is null, a string or an object",
    );
  const state = document.state ?? {};
  if (!isJsonObject(state)) throw new MafDocumentError(DOCUMENT, ["state"], "state is an object (a mapping)");
  const kept: JsonObject = { ...state };
  let messages: JsonObject[] = [];
  const paths: Array<Array<string | number>> = [];
  const history = state[historyKey];
  if (history !== undefined) {
    if (!isJsonObject(history))
      throw new MafDocumentError(
        DOCUMENT,
        ["state", historyKey],
        "the history provider's state is an object",
      );
    const list = history.messages ?? [];
    if (!Array.isArray(list))
      throw new MafDocumentError(DOCUMENT, ["state", historyKey, "messages"], "messages is a list");
    messages = list.map((message, index) => {
      const path = ["state", historyKey, "messages", index];
      paths.push(path);
      return pythonMessageToSkein(message, { document: DOCUMENT, path }, stamps);
    });
    const { messages: _messages, ...rest } = history;
    kept[historyKey] = rest;
  }
  return {
    info: { language: "python", sessionId, document: isFile ? "file_session_store" : "to_dict", historyKey },
    state: kept,
    messages,
    paths,
    serviceSessionId,
    document: DOCUMENT,
  };
}

/** What a MAF Python session is written from. */
export interface SessionParts {
  sessionId: string;
  serviceSessionId: Json;
  historyKey: string;
  /** Other state entries, in order (the history entry, if listed, is filled with the messages). */
  state: JsonObject;
  messages: JsonObject[];
  /** A `FileSessionStore` file (with `"version": "1.0"` last) rather than `AgentSession.to_dict()`. */
  file: boolean;
}

/** `AgentSession.to_dict()` (or a `FileSessionStore` file): messages in the history entry, `type` last in each. */
export function writePythonSession(parts: SessionParts): JsonObject {
  const state: JsonObject = { ...parts.state };
  if (parts.messages.length > 0 || parts.historyKey in state) {
    const entry = isJsonObject(state[parts.historyKey]) ? (state[parts.historyKey] as JsonObject) : {};
    state[parts.historyKey] = {
      messages: parts.messages.map((message, index) =>
        skeinMessageToPython(
          message,
          { document: DOCUMENT, path: ["state", parts.historyKey, "messages", index] },
          "last",
        ),
      ),
      ...entry,
    };
  }
  return {
    type: "session",
    session_id: parts.sessionId,
    service_session_id: parts.serviceSessionId,
    state,
    ...(parts.file ? { version: "1.0" } : {}),
  };
}
