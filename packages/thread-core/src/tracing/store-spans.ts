import { SPAN_ATTRIBUTES, storeAttributes, threadAttributes } from "./span-attributes.js";
import type { MethodSpan } from "./trace-methods.js";
import type { SpanAttributes } from "./tracing-api.js";

/**
 * The spans of a store's operations (`skein.store.<method>`) and of its local threads' operations
 * (`skein.thread.<method>`): the names are stable, the attributes those of `SPAN_ATTRIBUTES`.
 */

function urlOf(store: unknown): unknown {
  return (store as { url?: unknown } | null)?.url;
}

/** A store operation on the thread named by the call's first argument (an id, a state or a thread). */
function onThread(name: string): MethodSpan {
  return {
    name,
    start: (store, [subject]) => {
      const attributes = storeAttributes(urlOf(store), {});
      if (typeof subject === "string") attributes[SPAN_ATTRIBUTES.threadId] = subject;
      else threadAttributes(subject, attributes);
      return attributes;
    },
    end: (result) => threadAttributes(result, {}),
  };
}

export const STORE_SPANS: Readonly<Record<string, MethodSpan>> = Object.freeze({
  create: {
    name: "skein.store.create",
    start: (store, [type]) => {
      const attributes = storeAttributes(urlOf(store), {});
      if (typeof type === "string") attributes[SPAN_ATTRIBUTES.threadType] = type;
      return attributes;
    },
    end: (thread) => threadAttributes(thread, {}),
  },
  get: onThread("skein.store.get"),
  getState: onThread("skein.store.getState"),
  open: onThread("skein.store.open"),
  save: { ...onThread("skein.store.save"), end: undefined },
  import: onThread("skein.store.import"),
  export: onThread("skein.store.export"),
  delete: { ...onThread("skein.store.delete"), end: undefined },
  list: {
    name: "skein.store.list",
    start: (store) => storeAttributes(urlOf(store), {}),
    end: (page) => {
      const items = (page as { items?: unknown } | null)?.items;
      return Array.isArray(items) ? { [SPAN_ATTRIBUTES.threadsCount]: items.length } : undefined;
    },
  },
});

/** The thread's id and type, and its store's scheme and URL (a local thread's `host`). */
function threadStart(thread: unknown): SpanAttributes {
  return threadAttributes(thread, storeAttributes(urlOf((thread as { host?: unknown } | null)?.host), {}));
}

function messagesCount(result: unknown): SpanAttributes | undefined {
  return Array.isArray(result) ? { [SPAN_ATTRIBUTES.messagesCount]: result.length } : undefined;
}

function onLocalThread(name: string, end?: MethodSpan["end"]): MethodSpan {
  return end ? { name, start: threadStart, end } : { name, start: threadStart };
}

export const THREAD_SPANS: Readonly<Record<string, MethodSpan>> = Object.freeze({
  append: onLocalThread("skein.thread.append", messagesCount),
  message: onLocalThread("skein.thread.message", (found) => ({
    [SPAN_ATTRIBUTES.messagesCount]: found === undefined ? 0 : 1,
  })),
  messages: onLocalThread("skein.thread.messages", messagesCount),
  view: onLocalThread("skein.thread.view", messagesCount),
  fork: onLocalThread("skein.thread.fork", (fork) => {
    const id = (fork as { id?: unknown } | null)?.id;
    return typeof id === "string" ? { [SPAN_ATTRIBUTES.forkId]: id } : undefined;
  }),
  checkpoint: onLocalThread("skein.thread.checkpoint"),
  rollback: onLocalThread("skein.thread.rollback", messagesCount),
  at: onLocalThread("skein.thread.at"),
  history: onLocalThread("skein.thread.history"),
  delete: onLocalThread("skein.thread.delete"),
});
