import type { Content, Message, Thread } from "@skein/thread-core";
import {
  type BeginMessageOptions,
  type ReplyDelta,
  runTarget,
  type StreamingReply,
} from "@skein/thread-core/driver";
import type { EventStream, ReplyEvent } from "./event-stream.js";
import type { LiveReplies } from "./live-replies.js";

/** What a streaming runner passes to `RunOptions.beginMessage`. */
type ReplyOptions = Pick<BeginMessageOptions, "role" | "id" | "author">;

/** A thread whose type streams replies (local threads of every store: `LogThread`). */
interface StreamingThread extends Thread {
  beginMessage(options: BeginMessageOptions): Promise<StreamingReply>;
}

/**
 * The replies one run streams into its thread: `beginMessage` for the runner (through `RunOptions`), each
 * delta also sent to the service's events with its offset, and every reply still open when the run ends
 * (killed, timed out, failed, or a runner that forgot) ended `interrupted` with everything it received.
 */
export class RunReplies {
  readonly #open = new Set<ServiceReply>();

  constructor(
    readonly threadId: string,
    readonly messageId: string,
    readonly events: EventStream,
    readonly live: LiveReplies,
    /** Throws once the run is over (aborted, its lease lost): no reply begins or grows after that. */
    readonly guard: () => void,
  ) {}

  /**
   * `RunOptions.beginMessage` for a run on `thread`, or undefined when its type cannot stream (a remote
   * thread): the runner then appends its answer whole.
   */
  beginFor(thread: Thread): RunOptionsBegin | undefined {
    const target = runTarget(thread) as Partial<StreamingThread> | undefined;
    if (typeof target?.beginMessage !== "function") return undefined;
    const streaming = target as StreamingThread;
    return async (options) => {
      this.guard();
      const reply = await streaming.beginMessage({
        role: options.role,
        ...(options.id === undefined ? {} : { id: options.id }),
        ...(options.author === undefined ? {} : { author: options.author }),
      });
      const wrapped = new ServiceReply(reply, this);
      this.#open.add(wrapped);
      this.emit({ type: "reply-started", replyId: reply.id, role: options.role });
      try {
        // The run may have ended while the reply began (a kill): it must not stream on, nor linger.
        this.guard();
      } catch (error) {
        await this.failOpen(error);
        throw error;
      }
      return wrapped;
    };
  }

  /** Ends every reply still open `interrupted`, saying why; a reply that cannot be ended is left to its lease. */
  async failOpen(reason: unknown): Promise<void> {
    await Promise.all(
      [...this.#open].map((reply) =>
        reply.failAtRunEnd(reason).catch(() => {
          this.#open.delete(reply);
          this.live.forget(this.threadId, reply.id);
        }),
      ),
    );
  }

  /** Sends a reply's event to the events and to the registry of live replies, in one step. */
  emit(event: DistributiveOmit<ReplyEvent, "threadId" | "messageId" | "at">): void {
    const full = {
      ...event,
      threadId: this.threadId,
      messageId: this.messageId,
      at: new Date().toISOString(),
    } as ReplyEvent;
    this.live.note(full);
    this.events.emit(full);
  }

  closed(reply: ServiceReply, message: Message): void {
    this.#open.delete(reply);
    this.emit({ type: "reply-ended", replyId: reply.id, message });
  }
}

type RunOptionsBegin = (options: ReplyOptions) => Promise<StreamingReply>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A reply as the runner holds it: every write asks the run's guard first and is sent to the events. */
class ServiceReply implements StreamingReply {
  readonly #reply: StreamingReply;
  readonly #run: RunReplies;
  #ending: Promise<Message> | undefined;

  constructor(reply: StreamingReply, run: RunReplies) {
    this.#reply = reply;
    this.#run = run;
  }

  get id(): string {
    return this.#reply.id;
  }

  get written(): number {
    return this.#reply.written;
  }

  write(delta: ReplyDelta): Promise<void> {
    this.#run.guard();
    const offset = this.#reply.written;
    // The reply checks and takes the delta before its first await: counted now, it is this offset's.
    const writing = this.#reply.write(delta);
    if (this.#reply.written > offset) {
      this.#run.emit({ type: "delta", replyId: this.id, offset, delta: asContent(delta) });
    }
    return writing;
  }

  end(): Promise<Message> {
    this.#run.guard();
    return this.#close(() => this.#reply.end());
  }

  fail(error: unknown): Promise<Message> {
    this.#run.guard();
    return this.#close(() => this.#reply.fail(error));
  }

  /** The run is over with the reply still open: it ends `interrupted`, with `reason` as its error. */
  failAtRunEnd(reason: unknown): Promise<Message> {
    return this.#close(() => this.#reply.fail(reason));
  }

  #close(ending: () => Promise<Message>): Promise<Message> {
    // The runner and the end of the run may both end it; the first one does, the other waits for it.
    if (this.#ending) return this.#ending;
    const closing = ending().then((message) => {
      this.#run.closed(this, message);
      return message;
    });
    this.#ending = closing;
    // A failed end (the store unreachable) may be tried again.
    closing.catch(() => {
      if (this.#ending === closing) this.#ending = undefined;
    });
    return closing;
  }
}

/** A delta as the thread stores it: a string is a text part. */
function asContent(delta: ReplyDelta): Content {
  return typeof delta === "string" ? { type: "text", text: delta } : delta;
}
