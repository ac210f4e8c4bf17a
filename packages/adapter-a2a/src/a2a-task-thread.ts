import { Task as WireTask } from "@a2a-js/sdk";
import {
  type Message,
  type ReadOptions,
  type Thread,
  type ThreadCapabilities,
  ThreadNotFoundError,
  type ThreadSnapshot,
  type ThreadState,
  ThreadStateSchema,
  type ThreadStore,
  type ViewOptions,
} from "@skein/thread-core";
import { selectView, z } from "@skein/thread-core/driver";
import type { TaskJson } from "./a2a-json.js";
import { readConversation } from "./conversation-reader.js";
import { unsupported } from "./errors.js";
import { taskMessages } from "./message-mapping.js";

/** `a2a.task`: one A2A task as an A2A server keeps it in a skein store, in the protocol's JSON. */
export const A2aTaskThreadStateSchema = ThreadStateSchema.extend({
  $type: z.literal("a2a.task"),
  task: z.looseObject({ id: z.string().min(1), contextId: z.string().optional() }),
});

/** The JSON of an A2A task that `skeinTaskStore` keeps as a thread. */
export interface A2aTaskThreadState extends ThreadState {
  $type: "a2a.task";
  task: TaskJson;
}

const CAPABILITIES: ThreadCapabilities = Object.freeze({
  fork: "none",
  checkpoints: false,
  rollback: false,
  timeTravel: false,
  views: true,
  revisions: false,
  // A2A has no delete: the agent keeps its tasks.
  remoteDelete: false,
});

const WRITTEN_BY_SERVER = "its A2A server writes the task; talk to the agent through an a2a thread.";

/**
 * A stored task, readable as a thread (its history and artifacts as messages) by tools that inspect a
 * store. It is written only by `skeinTaskStore`, on behalf of the A2A server.
 */
export class A2aTaskThread implements Thread<A2aTaskThreadState> {
  readonly specificationVersion = "v1";
  readonly type = "a2a.task";
  /**
   * An A2A server writes this history, so no runner serves it, a2aRunner included: its reach names only `a2a`
   * (thread-core's `RemoteHistoryThread`).
   */
  readonly historyService = "a2a";
  readonly capabilities = CAPABILITIES;
  readonly revision = undefined;
  #state: A2aTaskThreadState;

  constructor(
    state: A2aTaskThreadState,
    readonly store?: ThreadStore,
  ) {
    this.#state = state;
  }

  /** A thread holding `task`, to save in a store. */
  static of(task: WireTask, store?: ThreadStore): A2aTaskThread {
    const json = WireTask.toJSON(task) as TaskJson & { id: string };
    return new A2aTaskThread({ $type: "a2a.task", $v: 1, id: task.id, task: json }, store);
  }

  get id(): string {
    return this.#state.id;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#state.metadata ?? {};
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.#state.context ?? {};
  }
  /** The task as the SDK's object. */
  get task(): WireTask {
    return WireTask.fromJSON(this.#state.task);
  }

  messages(options: ReadOptions = {}): Promise<Message[]> {
    const messages = taskMessages(this.#state.task);
    return readConversation([{ messages }], async () => messages, options, this.id);
  }

  async view(options: ViewOptions = {}): Promise<Message[]> {
    const messages = taskMessages(this.#state.task);
    return selectView(
      { length: messages.length, read: async (from, to) => messages.slice(from, to), systemAt: [] },
      options,
    );
  }

  append(): Promise<Message[]> {
    return Promise.reject(unsupported(this.type, "append", WRITTEN_BY_SERVER));
  }
  update(): Promise<void> {
    return Promise.reject(unsupported(this.type, "update", WRITTEN_BY_SERVER));
  }
  fork(): Promise<Thread> {
    return Promise.reject(unsupported(this.type, "fork", "copy its messages into a local thread instead."));
  }
  checkpoint(): Promise<never> {
    return Promise.reject(unsupported(this.type, "checkpoints", WRITTEN_BY_SERVER));
  }
  rollback(): Promise<never> {
    return Promise.reject(unsupported(this.type, "rollback", WRITTEN_BY_SERVER));
  }
  at(): Promise<ThreadSnapshot> {
    return Promise.reject(unsupported(this.type, "time travel", "a task keeps only its present state."));
  }
  history(): Promise<never> {
    return Promise.reject(unsupported(this.type, "time travel", "a task keeps only its present state."));
  }

  async refresh(): Promise<void> {
    if (!this.store) return;
    try {
      const fresh = await this.store.get(this.id);
      if (fresh instanceof A2aTaskThread) this.#state = fresh.#state;
    } catch (error) {
      if (!ThreadNotFoundError.isInstance(error)) throw error;
    }
  }

  toJSON(): A2aTaskThreadState {
    return structuredClone(this.#state);
  }

  async delete(options: { ifRevision?: number } = {}): Promise<void> {
    if (options.ifRevision !== undefined) {
      throw unsupported(this.type, "revisions", "a task thread has none; nothing was deleted.");
    }
    await this.store?.delete(this.id);
  }
}
