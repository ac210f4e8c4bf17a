import type { Message } from "@skein/thread-core";
import type { UIMessage, UIMessageChunk } from "ai";
import { ChunkDeltas } from "./chunk-deltas.js";
import { fromUIMessages } from "./from-ui-messages.js";
import type { StreamingThread } from "./streaming-thread.js";

/** How a reply streams into the thread (`thread.beginMessage`'s options). */
export interface ReplySettings {
  flushMs?: number;
  maxBatchBytes?: number;
  leaseMs?: number;
}

type Reply = Awaited<ReturnType<StreamingThread["beginMessage"]>>;

/**
 * Writes one UI message stream into a thread as it streams: reads the copy of the SSE stream the AI SDK hands
 * `consumeSseStream`, begins the reply at the stream's `start` chunk (under the id the client gets), writes each
 * chunk's deltas, and lets `onFinish` end it with the message the SDK assembled (`end`, exact) or `fail` it.
 * The copy is read apart from the client's: a client that goes away leaves the reply streaming into the thread.
 */
export class ReplyRecorder {
  readonly #thread: StreamingThread;
  readonly #settings: ReplySettings;
  readonly #deltas = new ChunkDeltas();
  #reply: Promise<Reply | undefined> | undefined;
  /** Writes in order; a failed write ends the recording (the reply's lease then ends it `interrupted`). */
  #writes: Promise<void> = Promise.resolve();
  #failure: unknown;
  #finished = false;

  constructor(thread: StreamingThread, settings: ReplySettings) {
    this.#thread = thread;
    this.#settings = settings;
  }

  /** `consumeSseStream`: reads the SSE copy to its end; never throws (the client's stream is not its concern). */
  async consume(stream: ReadableStream<string>): Promise<void> {
    let buffer = "";
    try {
      for await (const text of stream as unknown as AsyncIterable<string>) {
        buffer += text;
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          this.#event(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
        }
      }
    } catch (error) {
      this.#failure ??= error;
    }
  }

  /**
   * Ends the reply the stream wrote with `message` (the SDK's own assembly of the stream, mapped as
   * `fromUIMessages` maps it): whole, or `interrupted` (with an `error` content) when `failure` stopped it. Resolves to the stored
   * message, or undefined when no reply was begun (the stream ended before its copy was read): the caller saves then.
   */
  async finish(message: UIMessage, failure: unknown): Promise<Message | undefined> {
    this.#finished = true;
    const reply = await this.#reply;
    if (!reply) return undefined;
    await this.#writes;
    const [mapped] = fromUIMessages([message]) as [Message];
    const form = { contents: mapped.contents, ...(mapped.metadata ? { metadata: mapped.metadata } : {}) };
    return failure === undefined ? reply.end(form) : reply.fail(failure, form);
  }

  #event(event: string): void {
    const data = event
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (data.length === 0 || data === "[DONE]" || this.#finished || this.#failure !== undefined) return;
    const chunk = JSON.parse(data) as UIMessageChunk;
    if (chunk.type === "start") {
      this.#reply ??= this.#begin(chunk.messageId);
      return;
    }
    const deltas = this.#deltas.deltas(chunk);
    if (!this.#reply || deltas.length === 0) return;
    const reply = this.#reply;
    this.#writes = this.#writes.then(async () => {
      const open = await reply;
      if (!open || this.#failure !== undefined) return;
      try {
        for (const delta of deltas) await open.write(delta);
      } catch (error) {
        this.#failure = error;
      }
    });
  }

  async #begin(messageId: string | undefined): Promise<Reply | undefined> {
    try {
      return await this.#thread.beginMessage({
        role: "assistant",
        ...(messageId === undefined ? {} : { id: messageId }),
        ...this.#settings,
      });
    } catch (error) {
      // Not begun (another reply streams, the store is down): onFinish then saves the chat as a whole.
      this.#failure = error;
      return undefined;
    }
  }
}
