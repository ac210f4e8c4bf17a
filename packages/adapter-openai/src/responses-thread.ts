import {
  type AppendOptions,
  type Checkpoint,
  ConcurrencyError,
  type ForkOptions,
  type HistoryEvent,
  type Message,
  type MessageInput,
  type PointTarget,
  type ReadOptions,
  type RollbackOptions,
  type Thread,
  type ThreadSnapshot,
  UnsupportedOperationError,
  type UpdateOptions,
  type ViewOptions,
} from "@skein/thread-core";
import {
  type BindEnvironment,
  messageConflict,
  newSortableId,
  normalizeMessage,
  type ThreadUpdate,
} from "@skein/thread-core/driver";
import type OpenAI from "openai";
import { SOURCE } from "./errors.js";
import { messageToItems } from "./message-to-items.js";
import { readMessages } from "./remote-history.js";
import { remoteView } from "./remote-view.js";
import { ResponsesHistory } from "./responses-history.js";
import { resolvePoint } from "./responses-points.js";
import {
  type ChainPoint,
  checkpointOf,
  currentPoint,
  logPointOf,
  type OpenAIResponsesState,
  RESPONSES_CAPABILITIES,
  RESPONSES_TYPE,
} from "./responses-state.js";
import { type ChainAdvance, readAdvance, withoutAdvance } from "./run-advance.js";
import { StateDocument, saveNewState } from "./state-document.js";

/**
 * An `openai.responses` thread: a pointer to the last response of a chain linked by
 * `previous_response_id`, plus the messages appended since, which the next run sends as its input.
 * Requests per call: append, fork, checkpoint and rollback to a checkpoint 0 (they change the state only);
 * messages and view 1 + 1 per 100 messages read; a run 1 (`responses.create`); fork, rollback or `at` to a
 * message id 1 per 100 items of the chain + 1 per response after the target; delete 0 (responses stay
 * on the service, where forks may share them).
 */
export class OpenAIResponsesThread implements Thread<OpenAIResponsesState> {
  readonly specificationVersion = "v1";
  readonly type = RESPONSES_TYPE;
  /** OpenAI keeps this history, so only openaiRunner serves it (thread-core's `RemoteHistoryThread`). */
  readonly historyService = "openai";
  readonly capabilities = RESPONSES_CAPABILITIES;
  readonly #client: OpenAI;
  readonly #environment: BindEnvironment;
  readonly #document: StateDocument;
  #state: OpenAIResponsesState;
  /** Changes of one object run one at a time, each from the state the previous one left. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(state: OpenAIResponsesState, client: OpenAI, environment: BindEnvironment) {
    this.#state = structuredClone(state);
    this.#client = client;
    this.#environment = environment;
    this.#document = new StateDocument(environment, true);
  }

  get id(): string {
    return this.#state.id;
  }
  get revision(): number {
    return this.#state.revision;
  }
  get metadata(): Readonly<Record<string, unknown>> {
    return this.#state.metadata ?? {};
  }
  get context(): Readonly<Record<string, unknown>> {
    return this.#state.context ?? {};
  }
  /** The chain's last response, sent as `previous_response_id` by the next run; null before the first. */
  get previousResponseId(): string | null {
    return this.#state.previousResponseId;
  }

  /**
   * Records the messages as input for the next run (no request). A message whose id is already pending
   * is a no-op when equal and a `ConflictError` when not. The output of a run (messages carrying a
   * `ChainAdvance`) instead moves the thread to that run's response.
   */
  async append(input: MessageInput | MessageInput[], options: AppendOptions = {}): Promise<Message[]> {
    if (options.operationId !== undefined) throw unsupported("operationId", NO_OPERATIONS);
    const inputs = Array.isArray(input) ? input : [input];
    const advance = readAdvance(inputs);
    const messages = inputs.map((raw, index) => normalizeMessage(raw, Array.isArray(input) ? [index] : []));
    if (advance) return this.#advance(advance, messages, options);
    // Refuse what the service cannot hold now, not at the next run.
    for (const message of messages) messageToItems(message, { kind: "store", threadType: RESPONSES_TYPE });
    return this.#serial(async () => {
      const pending = new Map(this.#state.pending.map((message) => [message.id, message]));
      const fresh = messages.filter((message) => !pending.has(message.id));
      for (const message of messages) {
        const held = pending.get(message.id);
        const conflict = held && messageConflict(held, message, SOURCE);
        if (conflict) throw conflict;
      }
      if (fresh.length > 0 || options.ifRevision !== undefined) {
        await this.#change((state) => state.pending.push(...fresh), options.ifRevision);
      }
      return messages.map((message) => pending.get(message.id) ?? message);
    });
  }

  messages(options: ReadOptions = {}): Promise<Message[]> {
    return readMessages(this.#history(currentPoint(this.#state)), options);
  }

  view(options: ViewOptions = {}): Promise<Message[]> {
    return remoteView(this.#history(currentPoint(this.#state)), options);
  }

  /** A new thread pointing at the same chain (or at `at`): no request, nothing copied on the service. */
  async fork(options: ForkOptions = {}): Promise<Thread> {
    if (options.ifRevision !== undefined) await this.#assertStoredAt(options.ifRevision);
    const point = await resolvePoint(this.#client, this.#state, options.at);
    const now = new Date().toISOString();
    const state: OpenAIResponsesState = {
      $type: RESPONSES_TYPE,
      $v: 1,
      id: options.id ?? newSortableId(),
      createdAt: now,
      metadata: {
        ...structuredClone(this.#state.metadata ?? {}),
        ...structuredClone(options.metadata ?? {}),
      },
      context: structuredClone(this.#state.context ?? {}),
      revision: 1,
      previousResponseId: point.responseId,
      length: point.length,
      pending: point.pending,
      checkpoints: [],
      events: [{ kind: "fork", parentId: this.id, from: logPointOf(point), at: now, revision: 1 }],
    };
    const fork = new OpenAIResponsesThread(state, this.#client, this.#environment);
    await saveNewState(this.#environment, fork);
    return fork;
  }

  /** Records the current response id (and any pending input) under a new checkpoint id. */
  async checkpoint(label?: string, options: UpdateOptions = {}): Promise<Checkpoint> {
    return this.#serial(async () => {
      const now = new Date().toISOString();
      const record = {
        id: `cp_${newSortableId()}`,
        ...(label === undefined ? {} : { label }),
        createdAt: now,
        ...structuredClone(currentPoint(this.#state)),
      };
      const checkpoint = checkpointOf(this.id, record);
      await this.#change((state) => {
        state.checkpoints.push(record);
        state.events.push({ kind: "checkpoint", checkpoint, at: now, revision: state.revision });
      }, options.ifRevision);
      return checkpoint;
    });
  }

  /**
   * Points the thread back at an earlier response (or `"start"`); the abandoned chain stays on the service
   * and in `history()`. `{ append }` and `{ operationId }` are refused: this type records no operations.
   */
  async rollback(target: PointTarget, options: RollbackOptions = {}): Promise<void> {
    if (options.append !== undefined) {
      throw unsupported("rollback with append", "roll back, then append (two changes, not one).");
    }
    if (options.operationId !== undefined) throw unsupported("operationId", NO_OPERATIONS);
    const point = await resolvePoint(this.#client, this.#state, target);
    const name =
      typeof target === "string" ? target : "id" in target ? target.id : `${target.segment}:${target.offset}`;
    await this.#serial(() =>
      this.#change((state) => {
        const from = logPointOf(currentPoint(state));
        this.#moveTo(state, point);
        const at = new Date().toISOString();
        state.events.push({
          kind: "rollback",
          from,
          to: logPointOf(point),
          target: name,
          at,
          revision: state.revision,
        });
      }, options.ifRevision),
    );
  }

  async at(target: PointTarget): Promise<ThreadSnapshot> {
    const point = await resolvePoint(this.#client, this.#state, target);
    const history = () => this.#history(point);
    return {
      threadId: this.id,
      point: logPointOf(point),
      messages: (options = {}) => readMessages(history(), options),
      view: (options = {}) => remoteView(history(), options),
    };
  }

  async history(): Promise<HistoryEvent[]> {
    return structuredClone(this.#state.events);
  }

  async update(patch: ThreadUpdate, options: AppendOptions = {}): Promise<void> {
    await this.#serial(() =>
      this.#change((state) => {
        if (patch.metadata) state.metadata = structuredClone(patch.metadata);
        if (patch.context) state.context = structuredClone(patch.context);
      }, options.ifRevision),
    );
  }

  /** Reads the state the store holds now (another process may have run or rolled back the thread). */
  async refresh(): Promise<void> {
    await this.#serial(async () => {
      const stored = await this.#document.read(this.id);
      if (!stored) return;
      this.#state = stored as OpenAIResponsesState;
      this.#document.reset();
    });
  }

  toJSON(): OpenAIResponsesState {
    return structuredClone(this.#state);
  }

  /**
   * Deletes the state; the responses stay on the service, where forks of this thread may still use them.
   * `{ ifRevision }` is refused: the store's revision of the state need not be the thread's, so no one
   * step can check it as it deletes.
   */
  async delete(options: UpdateOptions = {}): Promise<void> {
    if (options.ifRevision !== undefined) {
      throw new UnsupportedOperationError(
        RESPONSES_TYPE,
        "delete with ifRevision",
        "no store step can check the thread's revision as it deletes; nothing was deleted.",
        { source: SOURCE },
      );
    }
    await this.#document.delete(this.id);
  }

  /**
   * Refuses a fork with a stale `ifRevision`: the state must be at that revision here and in the store. A
   * fork writes nothing to this thread, and forks the chain this handle read, so its content is the
   * thread at `ifRevision`.
   */
  async #assertStoredAt(ifRevision: number): Promise<void> {
    const stale = (actual: number) => new ConcurrencyError(this.id, ifRevision, actual, { source: SOURCE });
    if (this.#state.revision !== ifRevision) throw stale(this.#state.revision);
    const stored = (await this.#document.read(this.id))?.revision;
    if (typeof stored === "number" && stored !== ifRevision) throw stale(stored);
  }

  async #advance(advance: ChainAdvance, messages: Message[], options: AppendOptions): Promise<Message[]> {
    return this.#serial(async () => {
      if (this.#state.previousResponseId !== advance.previousResponseId) {
        throw new ConcurrencyError(this.id, advance.revision, this.#state.revision, { source: SOURCE });
      }
      const sent = new Set(advance.sent);
      await this.#change((state) => {
        state.previousResponseId = advance.responseId;
        state.length += advance.items;
        state.pending = state.pending.filter((message) => !sent.has(message.id));
      }, options.ifRevision);
      return messages.map(withoutAdvance);
    });
  }

  #moveTo(state: OpenAIResponsesState, point: ChainPoint): void {
    state.previousResponseId = point.responseId;
    state.length = point.length;
    state.pending = structuredClone(point.pending);
  }

  /** Applies a change to a copy of the state and saves it as the next revision; on failure nothing changes. */
  async #change(mutate: (state: OpenAIResponsesState) => void, ifRevision?: number): Promise<void> {
    const previous = this.#state;
    if (ifRevision !== undefined && ifRevision !== previous.revision) {
      throw new ConcurrencyError(this.id, ifRevision, previous.revision, { source: SOURCE });
    }
    const next = structuredClone(previous);
    next.revision = previous.revision + 1;
    mutate(next);
    this.#state = next;
    try {
      await this.#document.save(this, previous);
    } catch (error) {
      this.#state = previous;
      throw error;
    }
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #history(point: ChainPoint): ResponsesHistory {
    return new ResponsesHistory(this.#client, this.id, point, this.#state.createdAt);
  }
}

const NO_OPERATIONS =
  "the thread records no operations, so a retry could not be recognised; nothing was changed.";

/** What this type cannot honour, refused before anything changes. */
function unsupported(capability: string, detail: string): UnsupportedOperationError {
  return new UnsupportedOperationError(RESPONSES_TYPE, capability, detail, { source: SOURCE });
}
