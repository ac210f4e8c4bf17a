import { redactSecrets } from "../redact-secrets.js";
import { redactUrlText } from "../store/redact-url.js";
import type { SpanAttributes } from "./tracing-api.js";

/**
 * The attributes skein puts on its spans. Never a message's text, metadata, context or a credential: ids,
 * types, the store's scheme and its URL without passwords, and counts.
 */
export const SPAN_ATTRIBUTES = Object.freeze({
  /** The thread's id (for a store call, the id it was given or the thread it returned). */
  threadId: "skein.thread.id",
  /** The thread's `$type`. */
  threadType: "skein.thread.type",
  /** The store URL's scheme: `memory`, `file`, `redis`, `postgres`… */
  storeScheme: "skein.store.scheme",
  /** The store's URL without its query (which may carry credentials), its password replaced by `***`. */
  storeUrl: "skein.store.url",
  /** Messages the operation appended (append, a rollback's `append`, a run) or returned (messages, view). */
  messagesCount: "skein.messages.count",
  /** Threads a `list` page holds. */
  threadsCount: "skein.threads.count",
  /** The id of the thread a fork made. */
  forkId: "skein.fork.id",
  /** The model a run asked for (`config.model`). */
  runModel: "skein.run.model",
});

/** The store's scheme and URL: no query, no password, nothing shaped like a credential. */
export function storeAttributes(url: unknown, into: SpanAttributes): SpanAttributes {
  if (typeof url !== "string" || url === "") return into;
  const colon = url.indexOf(":");
  if (colon > 0) into[SPAN_ATTRIBUTES.storeScheme] = url.slice(0, colon);
  into[SPAN_ATTRIBUTES.storeUrl] = redactSecrets(redactUrlText(url.replace(/[?#][\s\S]*$/, "")));
  return into;
}

/** A thread's id and type, when they are strings (a state from outside may hold anything). */
export function threadAttributes(thread: unknown, into: SpanAttributes): SpanAttributes {
  if (typeof thread !== "object" || thread === null) return into;
  const { id, type, $type } = thread as { id?: unknown; type?: unknown; $type?: unknown };
  if (typeof id === "string") into[SPAN_ATTRIBUTES.threadId] = id;
  // `$type` first: on a state, `type` is a field of the caller's (it may hold anything); a thread has
  // no `$type` and names its type with `type`.
  const typeName = typeof $type === "string" ? $type : type;
  if (typeof typeName === "string") into[SPAN_ATTRIBUTES.threadType] = typeName;
  return into;
}
