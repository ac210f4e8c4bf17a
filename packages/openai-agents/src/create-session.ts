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
      thread?: undefined;
    }
  | {
      /** A thread to use as the session (a local thread of any store); its id is the session's. */
      thread: Thread;
      store?: ThreadStore;
      sessionId?: undefined;
    };

/**
 * Opens (or creates) the session's thread: `sessionId` names it, so another process resumes the session
 * with the same id. A given `thread` is used as it is.
 *
 * @example const session = await createSkeinSession({ store: await openStore("file:./.skein"), sessionId: "user-42" });
 */
export async function createSkeinSession(options: SkeinSessionOptions): Promise<SkeinSession> {
  const { store, thread, sessionId } = readOptions(options);
  if (thread) return new SkeinSession(thread);
  const id = sessionId ?? newSortableId();
  try {
    return new SkeinSession(await store.get(id));
  } catch (error) {
    if (!ThreadNotFoundError.isInstance(error)) throw error;
  }
  try {
    return new SkeinSession(await store.create({ id }));
  } catch (error) {
    // Another process created it first: both use that one.
    if (!ThreadExistsError.isInstance(error)) throw error;
    return new SkeinSession(await store.get(id));
  }
}

const EXPECTED = "createSkeinSession takes { store, sessionId? } (an open ThreadStore) or { thread }";

/** The options, checked: a store or a thread, never a URL, whose store nobody would close. */
function readOptions(
  options: unknown,
):
  | { store: ThreadStore; thread?: undefined; sessionId?: string }
  | { thread: Thread; store?: undefined; sessionId?: undefined } {
  if (typeof options !== "object" || options === null) {
    throw new SessionOptionsError(`${EXPECTED}; it was given ${options === null ? "null" : typeof options}.`);
  }
  const { store, thread, sessionId } = options as Record<string, unknown>;
  if (thread !== undefined) {
    if (!isThread(thread)) {
      throw new SessionOptionsError(
        `${EXPECTED}; its thread is not a thread. Pass a bound thread (await store.get(id)), not a thread's JSON state.`,
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
  return { store, ...(sessionId === undefined ? {} : { sessionId }) };
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
