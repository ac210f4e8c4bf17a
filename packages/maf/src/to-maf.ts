import { openStore, type Thread, type ThreadState } from "@skein/thread-core";
import { DOTNET_HISTORY_KEY, writeDotnetSession } from "./dotnet-session.js";
import { isJsonObject, type Json, type JsonObject } from "./json-value.js";
import { type MafLanguage, mafInfo, mafState } from "./maf-thread-info.js";
import { type PythonHistoryFormat, writePythonHistory } from "./python-history.js";
import { PYTHON_HISTORY_KEY, writePythonSession } from "./python-session.js";
import { REMOTE_TYPES, serviceSessionIdOf } from "./service-session.js";

/** How a skein thread is written as a MAF session. */
export interface ToMafSessionOptions {
  /** Which MAF reads it: Python (`AgentSession.from_dict`, `FileSessionStore`) or .NET (`ChatClientAgentSession`). */
  language: MafLanguage;
  /**
   * For Python: a `FileSessionStore` file (`"version": "1.0"` last) or `AgentSession.to_dict()`.
   * @default the form the session was read from, else "to_dict"
   */
  pythonDocument?: "to_dict" | "file_session_store";
  /** The session id written. @default the one the thread was read from, else the thread's id */
  sessionId?: string;
}

/**
 * A skein thread (or its state) as the MAF session document the chosen language's reader takes. Local threads
 * give their messages as the history provider's; `openai.responses`, `openai.conversation` and (for Python)
 * `a2a` threads give their service session id and no messages, as MAF keeps them.
 * @example await writeFile("session.json", JSON.stringify(await toMafSession(thread, { language: "python" })));
 */
export async function toMafSession(
  thread: Thread | ThreadState,
  options: ToMafSessionOptions,
): Promise<Record<string, unknown>> {
  const { state, messages } = await threadParts(thread);
  const info = mafInfo(state.metadata);
  const sameLanguage = info.language === undefined || info.language === options.language;
  const defaultKey = options.language === "python" ? PYTHON_HISTORY_KEY : DOTNET_HISTORY_KEY;
  const historyKey = sameLanguage ? (info.historyKey ?? defaultKey) : defaultKey;
  const kept = { ...mafState(state.context) };
  // The other language's history entry, emptied on import, means nothing to this one.
  if (
    !sameLanguage &&
    info.historyKey !== undefined &&
    isJsonObject(kept[info.historyKey]) &&
    Object.keys(kept[info.historyKey] as JsonObject).length === 0
  )
    delete kept[info.historyKey];
  const serviceSessionId: Json = REMOTE_TYPES.has(state.$type as string)
    ? serviceSessionIdOf(state, options.language)
    : ((info.serviceSessionId as Json | undefined) ?? null);
  const parts = {
    sessionId: options.sessionId ?? info.sessionId ?? (state.id as string),
    serviceSessionId,
    historyKey,
    state: kept,
    messages,
    file:
      (options.pythonDocument ??
        (info.document === "file_session_store" ? "file_session_store" : "to_dict")) === "file_session_store",
  };
  return options.language === "python" ? writePythonSession(parts) : writeDotnetSession(parts);
}

/** How a skein thread is written as a MAF Python history. */
export interface ToMafHistoryOptions {
  /** `jsonl`: a `FileHistoryProvider` file's text; `redis`: the strings of a `RedisHistoryProvider` list, in order. */
  format: PythonHistoryFormat;
}

/**
 * A skein thread's messages as a MAF Python history: the text of a `FileHistoryProvider` JSONL file, or the
 * strings to `RPUSH` to a `RedisHistoryProvider` list (`chat_messages:<session id>`).
 * @example await writeFile(`${id}.jsonl`, await toMafHistory(thread, { format: "jsonl" }));
 */
export async function toMafHistory(
  thread: Thread | ThreadState,
  options: { format: "jsonl" },
): Promise<string>;
export async function toMafHistory(
  thread: Thread | ThreadState,
  options: { format: "redis" },
): Promise<string[]>;
export async function toMafHistory(
  thread: Thread | ThreadState,
  options: ToMafHistoryOptions,
): Promise<string | string[]>;
export async function toMafHistory(
  thread: Thread | ThreadState,
  options: ToMafHistoryOptions,
): Promise<string | string[]> {
  const { messages } = await threadParts(thread);
  return writePythonHistory(messages, options.format);
}

/** The state and, for a local thread, every message, read from a bound thread or from a state (bound in memory). */
async function threadParts(
  thread: Thread | ThreadState,
): Promise<{ state: JsonObject; messages: JsonObject[] }> {
  const state = (isBound(thread) ? thread.toJSON() : thread) as unknown as JsonObject;
  if (REMOTE_TYPES.has(state.$type as string)) return { state, messages: [] };
  if (isBound(thread)) return { state, messages: (await thread.messages()) as unknown as JsonObject[] };
  const store = await openStore("memory:");
  try {
    const bound = await store.import(thread);
    return { state, messages: (await bound.messages()) as unknown as JsonObject[] };
  } finally {
    await store.close();
  }
}

function isBound(thread: Thread | ThreadState): thread is Thread {
  return typeof (thread as Thread).messages === "function";
}
