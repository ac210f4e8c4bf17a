import { redactSecrets } from "../redact-secrets.js";
import { redactUrlText } from "../store/open-store.js";
import type { SpanAttributes } from "./tracing-api.js";

/**
 * The attributes skein puts on its spans. Never a message's text, metadata, context or a credential: ids,
 * types, the store's scheme and its URL without passwords, and counts.
 */
export const SPAN_ATTRIBUTES = Object.freeze({
  threadId: "skein.thread.id",
  threadType: "skein.thread.type",
  storeScheme: "skein.store.scheme",
  storeUrl: "skein.store.url",
  /** Messages the operation appended (append) or returned (messages, view, rollback), or a run appended. */
  messagesCount: "skein.messages.count",
  /** Threads a `list` page holds. */
  threadsCount: "skein.threads.count",
  /** The id of the thread a fork made. */
  forkId: "skein.fork.id",
  /** The model a run asked for (`config.model`). */
  runModel: "skein.run.model",
});

/** The store's scheme and URL, passwords and anything shaped like a credential removed. */
export function storeAttributes(url: unknown, into: SpanAttributes): SpanAttributes {
  if (typeof url !== "string" || url === "") return into;
  const colon = url.indexOf(":");
  if (colon > 0) into[SPAN_ATTRIBUTES.storeScheme] = url.slice(0, colon);
  into[SPAN_ATTRIBUTES.storeUrl] = redactSecrets(redactUrlText(url));
  return into;
}

/** A thread's id and type, when they are strings (a state from outside may hold anything). */
export function threadAttributes(thread: unknown, into: SpanAttributes): SpanAttributes {
  if (typeof thread !== "object" || thread === null) return into;
  const { id, type, $type } = thread as { id?: unknown; type?: unknown; $type?: unknown };
  if (typeof id === "string") into[SPAN_ATTRIBUTES.threadId] = id;
  const typeName = typeof type === "string" ? type : $type;
  if (typeof typeName === "string") into[SPAN_ATTRIBUTES.threadType] = typeName;
  return into;
}
