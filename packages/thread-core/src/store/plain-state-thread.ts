import { UnsupportedOperationError } from "../errors.js";
import { cloneJson } from "../json.js";
import type { Message } from "../message.js";
import type { Checkpoint, HistoryEvent, Thread, ThreadCapabilities, ThreadSnapshot } from "../thread.js";
import type { ThreadState } from "../thread-type.js";
import type { ThreadStore } from "./store.js";

const NO_CAPABILITIES: ThreadCapabilities = Object.freeze({
  fork: "none",
  checkpoints: false,
  rollback: false,
  timeTravel: false,
  views: false,
  revisions: false,
});

/**
 * A stored state of a type registered without behaviour (no `bind`): what `store.open` and `store.import`
 * give for it. It has its id, type, metadata, context and `toJSON()`; everything a thread does throws
 * `UnsupportedOperationError` that says how to work with the state instead (`store.getState`, `store.save`).
 */
export class PlainStateThread implements Thread {
  readonly specificationVersion = "v1";
  readonly capabilities = NO_CAPABILITIES;
  readonly revision = undefined;
  #state: ThreadState;

  constructor(
    state: ThreadState,
    private readonly store: ThreadStore,
  ) {
    this.#state = state;
  }

  get id(): string {
    return this.#state.id;
  }
  get type(): string {
    return this.#state.$type;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#state.metadata ?? {};
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.#state.context ?? {};
  }

  toJSON(): ThreadState {
    return cloneJson(this.#state) as ThreadState;
  }

  async refresh(): Promise<void> {
    this.#state = await this.store.getState(this.id);
  }

  /** `{ ifRevision }` is the stored state's revision, checked by the store as it deletes. */
  async delete(options: { ifRevision?: number } = {}): Promise<void> {
    await this.store.delete(this.id, options);
  }

  append(): Promise<Message[]> {
    return this.#refuse("append");
  }
  messages(): Promise<Message[]> {
    return this.#refuse("messages");
  }
  view(): Promise<Message[]> {
    return this.#refuse("views");
  }
  fork(): Promise<Thread> {
    return this.#refuse("fork");
  }
  checkpoint(): Promise<Checkpoint> {
    return this.#refuse("checkpoints");
  }
  rollback(): Promise<unknown> {
    return this.#refuse("rollback");
  }
  at(): Promise<ThreadSnapshot> {
    return this.#refuse("time travel");
  }
  history(): Promise<HistoryEvent[]> {
    return this.#refuse("time travel");
  }
  update(): Promise<void> {
    return this.#refuse("update");
  }

  async #refuse(capability: string): Promise<never> {
    throw new UnsupportedOperationError(
      this.type,
      capability,
      `it is a plain state type (registered without bind); read it with store.getState(${JSON.stringify(this.id)}) and write it with store.save(state, { ifRevision })`,
    );
  }
}
