import { type Message, PointNotFoundError } from "@skein/thread-core";
import type OpenAI from "openai";
import type { Response } from "openai/resources/responses/responses";
import { SOURCE } from "./errors.js";
import { itemToMessage, type ServiceItem } from "./item-to-message.js";
import { MAX_PAGE, type RemoteHistory } from "./remote-history.js";
import type { ChainPoint } from "./responses-state.js";
import { callService } from "./service-call.js";

/**
 * The messages of a response chain at a point: the last response's input items (which the service keeps
 * as the whole context it was given: every earlier input and output of the chain), its output, and the
 * pending input after it. Requests: 1 to read the response, 1 per 100 input items read.
 */
export class ResponsesHistory implements RemoteHistory {
  #response: Promise<Response> | undefined;

  constructor(
    readonly client: OpenAI,
    readonly threadId: string,
    readonly point: ChainPoint,
    /** Items carry no timestamps; chain messages get the thread's creation time. */
    readonly createdAt: string,
  ) {}

  async *newestFirst(pageSize: number): AsyncIterable<Message> {
    yield* [...this.point.pending].reverse();
    if (this.point.responseId === null) return;
    const output = await this.output();
    yield* [...output].reverse();
    yield* this.inputItems("desc", pageSize);
  }

  async *oldestFirst(pageSize: number, after?: string): AsyncIterable<Message> {
    const pending = this.point.pending;
    const inPending = after === undefined ? -1 : pending.findIndex((message) => message.id === after);
    if (inPending >= 0) {
      yield* pending.slice(inPending + 1);
      return;
    }
    if (this.point.responseId === null) {
      if (after !== undefined) throw new PointNotFoundError(this.threadId, after, { source: SOURCE });
      yield* pending;
      return;
    }
    const output = await this.output();
    const inOutput = after === undefined ? -1 : output.findIndex((message) => message.id === after);
    if (inOutput < 0) yield* this.inputItemsAfter(pageSize, after);
    yield* output.slice(inOutput + 1);
    yield* pending;
  }

  /** The chain's last response (one `responses.retrieve`, made once). */
  response(): Promise<Response> {
    const responseId = this.point.responseId as string;
    this.#response ??= callService(
      this.client,
      { operation: "responses.retrieve", threadId: this.threadId },
      () => this.client.responses.retrieve(responseId),
    );
    return this.#response;
  }

  async output(): Promise<Message[]> {
    return (await this.response()).output.map((item) => this.toMessage(item as unknown as ServiceItem));
  }

  /** The last response's input items in `order`, page by page. */
  async *inputItems(order: "asc" | "desc", pageSize: number, after?: string): AsyncIterable<Message> {
    const responseId = this.point.responseId as string;
    const context = {
      operation: "responses.inputItems.list",
      threadId: this.threadId,
      ...(after === undefined ? {} : { point: { param: "after", id: after } }),
    };
    const limit = Math.min(MAX_PAGE, Math.max(1, pageSize));
    let page = await callService(this.client, context, () =>
      this.client.responses.inputItems.list(responseId, {
        order,
        limit,
        ...(after === undefined ? {} : { after }),
      }),
    );
    for (;;) {
      for (const item of page.data) yield this.toMessage(item as unknown as ServiceItem);
      if (!page.hasNextPage()) return;
      const current = page;
      page = await callService(this.client, context, () => current.getNextPage());
    }
  }

  /** Input items after a cursor; an empty answer is checked, since it may also mean an unknown cursor. */
  async *inputItemsAfter(pageSize: number, after: string | undefined): AsyncIterable<Message> {
    let empty = true;
    for await (const message of this.inputItems("asc", pageSize, after)) {
      empty = false;
      yield message;
    }
    if (!empty || after === undefined) return;
    for await (const last of this.inputItems("desc", 1)) {
      if (last.id === after) return;
      break;
    }
    throw new PointNotFoundError(this.threadId, after, { source: SOURCE });
  }

  toMessage(item: ServiceItem): Message {
    return itemToMessage(item, this.createdAt);
  }
}
