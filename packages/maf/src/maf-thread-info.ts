import { isJsonObject, type JsonObject } from "./json-value.js";

/** The MAF language a document was written by or is written for. */
export type MafLanguage = "python" | "dotnet";

/**
 * What skein keeps of a MAF session besides its messages, in the thread's `metadata.maf`: where it came from,
 * so that writing it back gives MAF the same session.
 */
export interface MafThreadInfo {
  language: MafLanguage;
  sessionId?: string;
  /** `to_dict` (AgentSession.to_dict), `file_session_store` (FileSessionStore's file, with `version`), `history`. */
  document?: string;
  /** The state key the history provider keeps its messages under. */
  historyKey?: string;
  /** A service session id kept as it was, when no skein thread type stands for it. */
  serviceSessionId?: unknown;
}

/** The part of a MAF session's state skein does not read, in `context.maf.state`: other providers' state, in order. */
export const STATE_CONTEXT_KEY = "maf";

/** `metadata.maf` of a thread, or an empty record. */
export function mafInfo(metadata: unknown): Partial<MafThreadInfo> {
  const value = isJsonObject(metadata) ? metadata.maf : undefined;
  return isJsonObject(value) ? (value as Partial<MafThreadInfo>) : {};
}

/** `context.maf.state` of a thread: the session state entries kept as they were, history entry emptied. */
export function mafState(context: unknown): JsonObject {
  const value = isJsonObject(context) ? context[STATE_CONTEXT_KEY] : undefined;
  return isJsonObject(value) && isJsonObject(value.state) ? value.state : {};
}
