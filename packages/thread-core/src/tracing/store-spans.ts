import { SPAN_ATTRIBUTES, storeAttributes, threadAttributes } from "./span-attributes.js";
import { type MethodSpan, traceMethods } from "./trace-methods.js";
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
    end: (result) => {
      traceThreadClass(result);
      return threadAttributes(result, {});
    },
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
    end: (thread) => {
      traceThreadClass(thread);
      return threadAttributes(thread, {});
    },
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
  count: {
    name: "skein.store.count",
    start: (store) => storeAttributes(urlOf(store), {}),
    end: (count) => (typeof count === "number" ? { [SPAN_ATTRIBUTES.threadsCount]: count } : undefined),
  },
  // A rekey can run for minutes: its span shows it, with no key material (the report holds key ids only).
  rekey: { name: "skein.store.rekey", start: (store) => storeAttributes(urlOf(store), {}) },
  // What an erasure removed, counted; never whose: the owner's id names the person erased, and traces are
  // kept (and copied) where the erasure does not reach. Nor the erased threads' ids, for the same reason.
  erase: {
    name: "skein.store.erase",
    start: (store) => storeAttributes(urlOf(store), {}),
    end: (report) => {
      const { threads, messages } = (report ?? {}) as { threads?: unknown; messages?: unknown };
      return typeof threads === "number" && typeof messages === "number"
        ? { [SPAN_ATTRIBUTES.threadsCount]: threads, [SPAN_ATTRIBUTES.messagesCount]: messages }
        : undefined;
    },
  },
  sweep: {
    name: "skein.store.sweep",
    start: (store) => storeAttributes(urlOf(store), {}),
    end: (progress) => {
      const deleted = (progress as { deleted?: unknown } | null)?.deleted;
      return typeof deleted === "number" ? { [SPAN_ATTRIBUTES.threadsCount]: deleted } : undefined;
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

function onThreadMethod(name: string, end?: MethodSpan["end"]): MethodSpan {
  return end ? { name, start: threadStart, end } : { name, start: threadStart };
}

export const THREAD_SPANS: Readonly<Record<string, MethodSpan>> = Object.freeze({
  append: onThreadMethod("skein.thread.append", messagesCount),
  message: onThreadMethod("skein.thread.message", (found) => ({
    [SPAN_ATTRIBUTES.messagesCount]: found === undefined ? 0 : 1,
  })),
  messages: onThreadMethod("skein.thread.messages", messagesCount),
  view: onThreadMethod("skein.thread.view", messagesCount),
  fork: onThreadMethod("skein.thread.fork", (fork) => {
    traceThreadClass(fork);
    const id = (fork as { id?: unknown } | null)?.id;
    return typeof id === "string" ? { [SPAN_ATTRIBUTES.forkId]: id } : undefined;
  }),
  checkpoint: onThreadMethod("skein.thread.checkpoint"),
  rollback: onThreadMethod("skein.thread.rollback", messagesCount),
  edit: onThreadMethod("skein.thread.edit"),
  regenerate: onThreadMethod("skein.thread.regenerate"),
  alternatives: onThreadMethod("skein.thread.alternatives"),
  switchTo: onThreadMethod("skein.thread.switchTo"),
  at: onThreadMethod("skein.thread.at"),
  history: onThreadMethod("skein.thread.history"),
  delete: onThreadMethod("skein.thread.delete"),
});

/** Prototypes already looked at, so a class is looked at once (held weakly: classes made per bind go). */
const looked = new WeakSet<object>();

/**
 * Traces the thread methods of a thread's class the first time a store hands out one of its threads, so
 * the threads adapters bind (OpenAI, Foundry, A2A, workflows, plain states) get `skein.thread.*` spans as
 * local threads do. Each method is wrapped where the class resolves it (the nearest prototype that has
 * it), and only on prototypes user code made: the walk stops at a built-in's prototype (`Object`, `Map`,
 * `Set`, `Array`, `EventEmitter`…), so a thread class extending `Map` never gets `Map.prototype.delete`
 * wrapped for the whole process. Threads made as plain objects are left alone.
 */
export function traceThreadClass(thread: unknown): void {
  if (typeof thread !== "object" || thread === null) return;
  const prototype = Object.getPrototypeOf(thread) as object | null;
  if (prototype === null || isBuiltInPrototype(prototype) || looked.has(prototype)) return;
  looked.add(prototype);
  for (const [name, span] of Object.entries(THREAD_SPANS)) {
    let owner: object | null = prototype;
    while (owner !== null && !isBuiltInPrototype(owner) && !Object.hasOwn(owner, name)) {
      owner = Object.getPrototypeOf(owner) as object | null;
    }
    if (owner !== null && !isBuiltInPrototype(owner)) traceMethods(owner, { [name]: span });
  }
}

/** Node's `EventEmitter.prototype`, when running on Node: its class is written in JavaScript, not native. */
const eventEmitterPrototype = (() => {
  try {
    const host = globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } };
    const events = host.process?.getBuiltinModule?.("node:events") as
      | { EventEmitter?: { prototype?: object } }
      | undefined;
    return events?.EventEmitter?.prototype;
  } catch {
    return undefined;
  }
})();

/** A prototype the platform made, not user code: its constructor is native, or it is `EventEmitter`'s. */
export function isBuiltInPrototype(prototype: object): boolean {
  if (prototype === Object.prototype || prototype === eventEmitterPrototype) return true;
  const maker = Object.getOwnPropertyDescriptor(prototype, "constructor")?.value;
  if (typeof maker !== "function" || maker.prototype !== prototype) return false;
  try {
    return /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(maker));
  } catch {
    return false;
  }
}
