import type { LogPoint, Thread, ThreadSnapshot, ThreadStore } from "@skein/thread-core";
import { OpaqueThreadState, WorkflowThread } from "@skein/thread-core";
import { UiRequestError } from "../errors.js";

/** Which thread a request is about: an id in a scope, and optionally a workflow's sub-thread by key. */
export interface ThreadAddress {
  id: string;
  scope?: string;
  sub?: string;
}

/** Reads `id`, `scope` and `sub` from a request's query. */
export function addressFrom(query: URLSearchParams): ThreadAddress {
  const id = query.get("id");
  if (!id) throw new UiRequestError(400, "The request names no thread: add ?id=.");
  const scope = query.get("scope") || undefined;
  const sub = query.get("sub") || undefined;
  return { id, ...(scope ? { scope } : {}), ...(sub ? { sub } : {}) };
}

/** The store as the scope names it; a scope object holds nothing, so one per request costs nothing. */
export function scopedStore(store: ThreadStore, scope: string | undefined): ThreadStore {
  return scope === undefined ? store : store.scope(scope);
}

/** The bound thread the address names, reading its latest state. */
export async function openThread(store: ThreadStore, address: ThreadAddress): Promise<Thread> {
  const thread = await scopedStore(store, address.scope).get(address.id);
  if (address.sub === undefined) return thread;
  if (!WorkflowThread.isInstance(thread))
    throw new UiRequestError(
      400,
      `Thread ${JSON.stringify(address.id)} is a ${thread.type}, not a workflow.`,
    );
  return thread.thread(address.sub);
}

/** A point of the log from the `at` query parameter (a `LogPoint` as JSON), if any. */
export function pointFrom(query: URLSearchParams, name = "at"): LogPoint | undefined {
  const text = query.get(name);
  // "head": the thread as it is now.
  if (!text || text === "head") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UiRequestError(400, `?${name}= is not JSON.`);
  }
  return asPoint(value, name);
}

/** Checks a point's shape; the thread itself checks that it exists. */
export function asPoint(value: unknown, name: string): LogPoint {
  const point = value as Partial<LogPoint> | null;
  if (
    typeof point !== "object" ||
    point === null ||
    typeof point.segment !== "string" ||
    !Number.isSafeInteger(point.offset) ||
    !Number.isSafeInteger(point.position)
  ) {
    throw new UiRequestError(400, `${name} must be a point { segment, offset, position }.`);
  }
  return { segment: point.segment, offset: point.offset as number, position: point.position as number };
}

/** What reads go to: the thread now, or, given a point, the thread as it was there (`at()`). */
export type Readable = Pick<ThreadSnapshot, "messages" | "view">;

/** The thread as it was at a point it recorded (`at()`); its `point` is the thread's, with the true position. */
export async function readableAt(thread: Thread, point: LogPoint): Promise<ThreadSnapshot> {
  return thread.at(point);
}

/** Whether a workflow's sub-thread state could be bound here (its adapter is installed). */
export function isOpaque(value: unknown): value is OpaqueThreadState {
  return OpaqueThreadState.isInstance(value);
}
