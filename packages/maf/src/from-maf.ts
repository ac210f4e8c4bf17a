import { assertThreadId, newSortableId, type ThreadState } from "@skein/thread-core";
import { documentText, documentValue, type MafInput } from "./document-input.js";
import { readDotnetSession } from "./dotnet-session.js";
import { MafDocumentError } from "./errors.js";
import { isJsonObject, type Json, type JsonObject } from "./json-value.js";
import { type MafThreadInfo, STATE_CONTEXT_KEY } from "./maf-thread-info.js";
import { memoryState } from "./memory-state.js";
import { readPythonHistory } from "./python-history.js";
import { PYTHON_HISTORY_KEY, readPythonSession } from "./python-session.js";
import { remoteThreadState, type ServiceSessionOptions } from "./service-session.js";

/** How a MAF session or history becomes a skein thread state. */
export interface FromMafOptions extends ServiceSessionOptions {
  /** The skein thread's id. @default the MAF Python session id; for a .NET session (which has none), a new sortable id */
  id?: string;
  /**
   * The time given to the thread and to messages that carry none (MAF Python records no times).
   * @default now
   */
  createdAt?: string;
  /**
   * The session state key of the history provider whose messages become the thread's.
   * @default "in_memory" for MAF Python, "InMemoryChatHistoryProvider" for MAF .NET
   */
  historyKey?: string;
}

/**
 * A MAF session as a skein thread state: MAF Python's `AgentSession.to_dict()` or `FileSessionStore` file, or a
 * MAF .NET serialized `ChatClientAgentSession`. A session whose service session id a skein type stands for
 * (`resp_…`, `conv_…`, A2A with `a2aAgentUrl`) and that holds no local messages becomes that remote state;
 * otherwise a `memory` state with the history as messages. Bring it in with `store.import(state)`.
 * @example const thread = await store.import(fromMafSession(JSON.parse(await readFile("session.json", "utf8"))));
 */
export function fromMafSession(input: MafInput, options: FromMafOptions = {}): ThreadState {
  const value = documentValue(input, "MAF session");
  if (!isJsonObject(value))
    throw new MafDocumentError(
      "MAF session",
      [],
      "is neither a MAF Python session nor a MAF .NET session (a JSON object)",
    );
  const createdAt = options.createdAt ?? new Date().toISOString();
  const stamps = { createdAt };
  const read = isDotnetSession(value)
    ? readDotnetSession(value, options.historyKey ?? "InMemoryChatHistoryProvider", stamps)
    : isPythonSession(value)
      ? readPythonSession(value, options.historyKey ?? PYTHON_HISTORY_KEY, stamps)
      : undefined;
  if (!read)
    throw new MafDocumentError(
      "MAF session",
      [],
      "is neither a MAF Python session (session_id, state) nor a MAF .NET session (conversationId, stateBag)",
    );
  // A .NET session has no id of its own: like `store.create`, skein makes one when none is given.
  const id = threadId(
    options.id ?? read.info.sessionId ?? (read.info.language === "dotnet" ? newSortableId() : undefined),
    read.document,
  );
  const base = {
    id,
    createdAt,
    metadata: {} as JsonObject,
    context: { [STATE_CONTEXT_KEY]: { state: read.state } } as JsonObject,
  };
  if (read.serviceSessionId !== null && read.messages.length === 0) {
    const remote = remoteThreadState(
      read.serviceSessionId,
      { ...base, metadata: { maf: info(read.info) } },
      options,
    );
    if (remote) return remote as ThreadState;
  }
  const kept: MafThreadInfo =
    read.serviceSessionId === null ? read.info : { ...read.info, serviceSessionId: read.serviceSessionId };
  return memoryState({
    ...base,
    metadata: { maf: info(kept) },
    messages: read.messages,
    paths: read.paths,
    document: read.document,
  }) as unknown as ThreadState;
}

/**
 * A MAF Python history as a skein `memory` thread state: `FileHistoryProvider` JSONL (text or bytes), or the
 * strings of a `RedisHistoryProvider` list (`LRANGE chat_messages:<session id> 0 -1`). `sessionId` names the
 * session (from the file name: `sessionIdFromHistoryFileName`; from the Redis key after `chat_messages:`).
 * @example const state = fromMafHistory(await readFile("sess_1.jsonl", "utf8"), { sessionId: "sess_1" });
 */
export function fromMafHistory(
  input: string | Uint8Array | readonly string[],
  options: FromMafOptions & { sessionId?: string } = {},
): ThreadState {
  const createdAt = options.createdAt ?? new Date().toISOString();
  const lines = Array.isArray(input)
    ? (input as readonly string[])
    : documentText(input as string | Uint8Array);
  const read = readPythonHistory(lines, { createdAt });
  const document = "MAF history";
  const id = threadId(options.id ?? options.sessionId, document);
  const maf: MafThreadInfo = {
    language: "python",
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    document: "history",
  };
  const state = memoryState({
    id,
    createdAt,
    metadata: { maf: info(maf) },
    context: {},
    messages: read.messages,
    paths: read.paths,
    document,
  });
  return state as unknown as ThreadState;
}

function isPythonSession(value: JsonObject): boolean {
  return "session_id" in value || "state" in value || value.type === "session";
}

/** `{}` too: what an empty `ChatClientAgentSession` (no conversation, nothing in its state bag) is written as. */
function isDotnetSession(value: JsonObject): boolean {
  if (isPythonSession(value)) return false;
  return "conversationId" in value || "stateBag" in value || Object.keys(value).length === 0;
}

function threadId(id: string | undefined, document: string): string {
  if (id === undefined)
    throw new MafDocumentError(
      document,
      [],
      "names no session: give `id` (or `sessionId`) for the skein thread",
    );
  try {
    assertThreadId(id);
  } catch (error) {
    throw new MafDocumentError(
      document,
      [],
      `${JSON.stringify(id)} cannot be a skein thread id; give \`id\``,
      { cause: error },
    );
  }
  return id;
}

function info(value: MafThreadInfo): Json {
  return value as unknown as Json;
}
