import { type Thread, ThreadExistsError, ThreadNotFoundError, type ThreadStore } from "@skein/thread-core";
import { newSortableId } from "@skein/thread-core/driver";
import { SessionOptionsError } from "./session-errors.js";
import { SkeinSession } from "./skein-session.js";

/** Options of `createSkeinSession`: a thread, or a store and the session's id. */
export type SkeinSessionOptions =
  | {
      /**
       * Where the session's thread lives: an open store (`await openStore(url)`, or an adapter's store
       * with your client). The application owns it and closes it; a URL string is refused.
       */
      store: ThreadStore;
      /** The session's id, which is its thread's id: the same id resumes it in any process. @default a new id */
      sessionId?: string;
      /**
       * The user the session belongs to: a new session's thread gets it (so `store.list({ owner })` finds
       * it), and an existing thread of another owner is refused rather than resumed.
       */
      owner?: string;
      /** A new session's title, as a list of conversations shows it. */
      title?: string;
      thread?: undefined;
    }
  | {
      /** A thread to use as the session (a local thread of any store); its id is the session's. */
      thread: Thread;
      store?: ThreadStore;
      sessionId?: undefined;
      owner?: undefined;
      title?: undefined;
    };

/**
 * Opens (or creates) the session's thread: `sessionId` names it, so another process resumes the session
 * with the same id. A given `thread` is used as it is.
 *
 * @example const session = await createSkeinSession({ store: await openStore("file:./.skein"), sessionId: "user-42" });
 */
export async function createSkeinSession(options: SkeinSessionOptions): Promise<SkeinSession> {
  const { store, thread, sessionId, owner, title } = readOptions(options);
  if (thread) return new SkeinSession(thread);
  const id = sessionId ?? newSortableId();
  try {
    return new SkeinSession(ownedBy(await store.get(id), owner));
  } catch (error) {
    if (!ThreadNotFoundError.isInstance(error)) throw error;
  }
  try {
    const settings = {
      id,
      ...(owner === undefined ? {} : { owner }),
      ...(title === undefined ? {} : { title }),
    };
    return new SkeinSession(await store.create(settings));
  } catch (error) {
    // Another process created it first: both use that one.
    if (!ThreadExistsError.isInstance(error)) throw error;
    return new SkeinSession(ownedBy(await store.get(id), owner));
  }
}

/** The thread, unless it belongs to an owner other than `owner` (one user never resumes another's session). */
function ownedBy(thread: Thread, owner: string | undefined): Thread {
  const current = (thread as Thread & { owner?: string }).owner;
  if (owner !== undefined && current !== undefined && current !== owner) {
    throw new SessionOptionsError(
      `session ${JSON.stringify(thread.id)} belongs to another owner; nothing was read or written. Give that owner, or another sessionId.`,
    );
  }
  return thread;
}

const EXPECTED =
  "createSkeinSession takes { store, sessionId?, owner?, title? } (an open ThreadStore) or { thread }";

/** The options, checked: a store or a thread, never a URL, whose store nobody would close. */
function readOptions(
  options: unknown,
):
  | { store: ThreadStore; thread?: undefined; sessionId?: string; owner?: string; title?: string }
  | { thread: Thread; store?: undefined; sessionId?: undefined; owner?: undefined; title?: undefined } {
  if (typeof options !== "object" || options === null) {
    throw new SessionOptionsError(`${EXPECTED}; it was given ${options === null ? "null" : typeof options}.`);
  }
  const { store, thread, sessionId, owner, title } = options as Record<string, unknown>;
  if (thread !== undefined) {
    if (!isThread(thread)) {
      throw new SessionOptionsError(
        `${EXPECTED}; its thread is not a thread. Pass a bound thread (await store.get(id)), not a thread's JSON state.`,
      );
    }
    if (owner !== undefined || title !== undefined) {
      throw new SessionOptionsError(
        `${EXPECTED}; owner and title go with a store (they are set when the session's thread is created), not with a thread.`,
      );
    }
    return { thread };
  }
  if (typeof store === "string") {
    // Not opened here: a session that opened its store would have to close it, and two sessions given one
    // "memory:" URL would each get an empty store of their own. The URL is not quoted: it may hold a password.
    throw new SessionOptionsError(
      `${EXPECTED}; its store is a URL string. Open the store once and pass it: { store: await openStore(url) } (from @skein/thread-core), and close it when the application is done.`,
    );
  }
  if (!isStore(store)) {
    throw new SessionOptionsError(
      `${EXPECTED}; it was given ${store === undefined ? "neither a store nor a thread" : "a store that is not a ThreadStore"}. Open one with openStore(url) from @skein/thread-core.`,
    );
  }
  if (sessionId !== undefined && typeof sessionId !== "string") {
    throw new SessionOptionsError(`${EXPECTED}; its sessionId must be a string (the thread's id).`);
  }
  for (const [name, value] of [
    ["owner", owner],
    ["title", title],
  ] as const) {
    if (value !== undefined && typeof value !== "string") {
      throw new SessionOptionsError(`${EXPECTED}; its ${name} must be a string.`);
    }
  }
  return {
    store,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(owner === undefined ? {} : { owner: owner as string }),
    ...(title === undefined ? {} : { title: title as string }),
  };
}

function isStore(value: unknown): value is ThreadStore {
  const store = value as Partial<ThreadStore> | null;
  return (
    typeof store === "object" &&
    store !== null &&
    typeof store.get === "function" &&
    typeof store.create === "function"
  );
}

function isThread(value: unknown): value is Thread {
  const thread = value as Partial<Thread> | null;
  return (
    typeof thread === "object" &&
    thread !== null &&
    typeof thread.append === "function" &&
    typeof thread.capabilities === "object" &&
    thread.capabilities !== null
  );
}
