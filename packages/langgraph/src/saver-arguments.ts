import type { RunnableConfig } from "@langchain/core/runnables";
import type { Checkpoint, PendingWrite, SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { ThreadStore } from "@skein/thread-core";
import { describeValue } from "./describe-value.js";
import { CheckpointerArgumentError } from "./errors.js";

const CONSTRUCTOR = "new SkeinCheckpointSaver";

/** The most characters a prefix may have, so the skein ids built from it stay well inside 256. */
export const MAX_PREFIX = 64;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the constructor was given, checked whole: the store, the prefix, the serializer and `ownsStore`. */
export function checkSaverOptions(options: unknown): {
  store: ThreadStore;
  prefix: string;
  serde: SerializerProtocol | undefined;
  ownsStore: boolean;
} {
  if (!isObject(options)) {
    throw new CheckpointerArgumentError(CONSTRUCTOR, "its options", "{ store }", describeValue(options));
  }
  const { store, prefix = "langgraph/", serde, ownsStore = false } = options;
  if (typeof store === "string") {
    // A constructor cannot await a store's opening; the async factory can, and owns what it opened.
    throw new CheckpointerArgumentError(
      CONSTRUCTOR,
      "options.store",
      `an open store (await openStore(url)); for a URL use await SkeinCheckpointSaver.open(${JSON.stringify(store.slice(0, 60))}), which opens the store and closes it on close()`,
      "a URL string",
    );
  }
  const storeMethods = ["get", "create", "list", "delete", "close"] as const;
  if (!isObject(store) || storeMethods.some((name) => typeof store[name] !== "function")) {
    throw new CheckpointerArgumentError(
      CONSTRUCTOR,
      "options.store",
      "an open skein store (await openStore(url))",
      describeValue(store),
    );
  }
  if (typeof prefix !== "string" || prefix.length > MAX_PREFIX) {
    throw new CheckpointerArgumentError(
      CONSTRUCTOR,
      "options.prefix",
      `a string of at most ${MAX_PREFIX} characters`,
      typeof prefix === "string" ? `${prefix.length} characters` : describeValue(prefix),
    );
  }
  const serdeMethods = ["dumpsTyped", "loadsTyped"] as const;
  if (
    serde !== undefined &&
    (!isObject(serde) || serdeMethods.some((name) => typeof serde[name] !== "function"))
  ) {
    throw new CheckpointerArgumentError(
      CONSTRUCTOR,
      "options.serde",
      "a LangGraph SerializerProtocol (dumpsTyped, loadsTyped)",
      describeValue(serde),
    );
  }
  if (typeof ownsStore !== "boolean") {
    throw new CheckpointerArgumentError(
      CONSTRUCTOR,
      "options.ownsStore",
      "true or false",
      describeValue(ownsStore),
    );
  }
  return {
    store: store as unknown as ThreadStore,
    prefix,
    serde: serde as SerializerProtocol | undefined,
    ownsStore,
  };
}

/** A method's `RunnableConfig` is an object; its fields are checked where they are read (`runnable-config.ts`). */
export function assertConfig(call: string, config: unknown): asserts config is RunnableConfig {
  if (!isObject(config)) {
    throw new CheckpointerArgumentError(
      call,
      "config",
      'a RunnableConfig such as { configurable: { thread_id: "t-1" } }',
      describeValue(config),
    );
  }
}

/** `put`'s checkpoint is a LangGraph checkpoint: at least an object with its string id. */
export function assertCheckpoint(checkpoint: unknown): asserts checkpoint is Checkpoint {
  if (!isObject(checkpoint) || typeof checkpoint.id !== "string" || checkpoint.id === "") {
    throw new CheckpointerArgumentError(
      "put",
      "checkpoint",
      "a LangGraph Checkpoint with a string id (emptyCheckpoint(), or the one the graph made)",
      isObject(checkpoint) ? "an object without a string id" : describeValue(checkpoint),
    );
  }
}

/** `putWrites`' writes are an array of `[channel, value]` pairs. */
export function assertWrites(writes: unknown): asserts writes is PendingWrite[] {
  const pairs =
    Array.isArray(writes) &&
    writes.every((write) => Array.isArray(write) && write.length === 2 && typeof write[0] === "string");
  if (!pairs) {
    throw new CheckpointerArgumentError(
      "putWrites",
      "writes",
      "an array of [channel, value] pairs",
      describeValue(writes),
    );
  }
}

/** `deleteThread`'s id: `String(undefined)` would otherwise delete a LangGraph thread named "undefined". */
export function assertThreadId(threadId: unknown): void {
  const valid = (typeof threadId === "string" && threadId !== "") || Number.isFinite(threadId);
  if (!valid) {
    throw new CheckpointerArgumentError(
      "deleteThread",
      "threadId",
      "a non-empty string (the config's thread_id)",
      describeValue(threadId),
    );
  }
}
