import { createHash } from "node:crypto";
import type { ListTasksRequest, ListTasksResponse, Task } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import {
  type OwnerResolver,
  resolveUserScope,
  type ServerCallContext,
  type TaskStore,
} from "@a2a-js/sdk/server";
import {
  InvalidThreadStateError,
  ThreadNotFoundError,
  type ThreadStore,
  UnknownThreadTypeError,
  UnsupportedVersionError,
} from "@skein/thread-core";
import { assertThreadId } from "@skein/thread-core/driver";
import { A2aTaskThread } from "./a2a-task-thread.js";
import { a2aTaskThreadType } from "./a2a-task-thread-type.js";
import { A2aTaskStoreError } from "./errors.js";

/** Options of `skeinTaskStore`: the skein store that keeps an A2A server's tasks. */
export interface SkeinTaskStoreOptions {
  /** Who owns a task; each owner sees only its own. @default the caller's user name, as the SDK's stores do */
  ownerResolver?: OwnerResolver;
  /** The scope of `store` the tasks live in, apart from its threads. @default "a2a-tasks" */
  scope?: string;
}

/** The protocol's default page size for ListTasks. */
const DEFAULT_PAGE_SIZE = 50;
const READ_BATCH = 100;
/** Errors that say the stored document is not a task this version can read (others pass through). */
const UNREADABLE: ReadonlyArray<{ isInstance(value: unknown): boolean }> = [
  InvalidThreadStateError,
  UnsupportedVersionError,
  UnknownThreadTypeError,
];

/**
 * The SDK's `TaskStore` on any skein store (`memory:`, `file:`, `redis://`), so an A2A server keeps its
 * tasks where skein keeps threads and finds them again after a restart. Each task is an `a2a.task`
 * state under its id, in a scope per tenant and owner.
 * @example new DefaultRequestHandler(card, skeinTaskStore(await openStore("redis://localhost:6379")), executor)
 */
export function skeinTaskStore(store: ThreadStore, options: SkeinTaskStoreOptions = {}): TaskStore {
  store.registry.ensure(a2aTaskThreadType);
  const root = store.scope(options.scope ?? "a2a-tasks");
  const ownerOf = options.ownerResolver ?? resolveUserScope;
  const scopeOf = (context: ServerCallContext) => {
    const tenant = context.tenant ? root.scope(scopeName("tenant", context.tenant)) : root;
    return tenant.scope(scopeName("owner", ownerOf(context)));
  };
  return {
    async save(task: Task, context: ServerCallContext): Promise<void> {
      const checked = checkTask(task);
      const scoped = scopeOf(context);
      await scoped.save(taskThread(checked, scoped));
    },
    async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
      // An id no skein store can hold names no task: it was never saved.
      if (!isThreadId(taskId)) return undefined;
      return (await readTask(scopeOf(context), taskId))?.task;
    },
    async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
      return listTasks(await readAll(scopeOf(context)), params);
    },
  };
}

/** `task` when it is an object with an id a store can hold; anything else is refused before a store is touched. */
function checkTask(task: unknown): Task & { id: string } {
  if (typeof task !== "object" || task === null || Array.isArray(task)) {
    const kind = task === null ? "null" : Array.isArray(task) ? "an array" : typeof task;
    throw new A2aTaskStoreError("", `save() takes an A2A Task object, not ${kind}.`);
  }
  const id = (task as { id?: unknown }).id;
  if (typeof id !== "string") throw new A2aTaskStoreError("", "save() takes an A2A Task, with a string id.");
  if (!isThreadId(id)) {
    throw new A2aTaskStoreError(id, "a task id must be 1–256 characters without control characters.");
  }
  return task as Task & { id: string };
}

/** The thread holding `task`. The SDK's serializer trusts its input's shape, and throws a TypeError on any other. */
function taskThread(task: Task & { id: string }, store: ThreadStore): A2aTaskThread {
  try {
    return A2aTaskThread.of(task, store);
  } catch (error) {
    throw new A2aTaskStoreError(
      task.id,
      "this is not an A2A Task the protocol can write (a malformed history, artifact, status or metadata); nothing was saved.",
      { cause: error },
    );
  }
}

async function readTask(store: ThreadStore, taskId: string): Promise<A2aTaskThread | undefined> {
  let thread: unknown;
  try {
    thread = await store.get(taskId);
  } catch (error) {
    if (ThreadNotFoundError.isInstance(error)) return undefined;
    if (UNREADABLE.some((type) => type.isInstance(error))) {
      throw new A2aTaskStoreError(taskId, "the stored task could not be read.", { cause: error });
    }
    throw error;
  }
  if (thread instanceof A2aTaskThread) return thread;
  throw new A2aTaskStoreError(
    taskId,
    `the store holds a ${(thread as { type: string }).type} thread under this id.`,
  );
}

/** Every task of one scope; ListTasks filters and orders them all, as the SDK's in-memory store does. */
async function readAll(store: ThreadStore): Promise<Task[]> {
  const tasks: Task[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: READ_BATCH, ...(cursor ? { cursor } : {}) });
    const threads = await Promise.all(page.items.map((item) => readTask(store, item.id)));
    for (const thread of threads) if (thread) tasks.push(thread.task);
    cursor = page.cursor;
  } while (cursor);
  return tasks;
}

/** ListTasks with the SDK stores' meaning: filters, newest status first (ties by id), cursor pages. */
export function listTasks(all: Task[], params: ListTasksRequest): ListTasksResponse {
  const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
  const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
  const matching = all
    .filter((task) => !params.contextId || task.contextId === params.contextId)
    .filter((task) => !params.status || task.status?.state === params.status)
    .filter((task) => after === undefined || statusTime(task) > after)
    .sort((a, b) => statusTime(b) - statusTime(a) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0));
  const cursor = params.pageToken ? decodePageToken(params.pageToken) : undefined;
  const rest = cursor
    ? matching.filter((task) => {
        const time = statusTime(task);
        return time < cursor.time || (time === cursor.time && task.id < cursor.id);
      })
    : matching;
  const page = rest.slice(0, pageSize);
  const last = page[page.length - 1];
  return {
    tasks: page.map((task) => (params.includeArtifacts ? task : { ...task, artifacts: [] })),
    nextPageToken: last && rest.length > page.length ? encodePageToken(last) : "",
    pageSize,
    totalSize: matching.length,
  };
}

function statusTime(task: Task): number {
  const time = task.status?.timestamp ? Date.parse(task.status.timestamp) : 0;
  return Number.isNaN(time) ? 0 : time;
}

/** The SDK's own token format (`base64("<timestamp>|<id>")`), so tokens mean the same on every store. */
function encodePageToken(task: Task): string {
  const time = statusTime(task);
  return Buffer.from(`${time === 0 ? "" : new Date(time).toISOString()}|${task.id}`).toString("base64");
}

function decodePageToken(token: string): { time: number; id: string } {
  const [timestamp = "", ...id] = Buffer.from(token, "base64").toString("utf8").split("|");
  const time = timestamp === "" ? 0 : Date.parse(timestamp);
  if (id.length === 0 || Number.isNaN(time)) throw new RequestMalformedError("Invalid page token format.");
  return { time, id: id.join("|") };
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A scope name for any tenant or owner string, one per string (injective): `kind:value` when that is a valid
 * id; else `kind#` and the SHA-256 of its UTF-8 bytes, the names earlier versions gave, so stored tasks are
 * found again. UTF-8 cannot hold a lone surrogate (each turns into U+FFFD, so `"a\ud800"` and `"a\udc00"`
 * would share a scope): such a string is `kind~` and the SHA-256 of its UTF-16 code units.
 */
function scopeName(kind: string, value: string): string {
  const name = `${kind}:${value}`;
  if (isThreadId(name)) return name;
  if (LONE_SURROGATE.test(value)) return `${kind}~${sha256(Buffer.from(value, "utf16le"))}`;
  return `${kind}#${sha256(Buffer.from(value, "utf8"))}`;
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("base64url");
}

function isThreadId(id: unknown): id is string {
  try {
    assertThreadId(id);
    return true;
  } catch {
    return false;
  }
}
