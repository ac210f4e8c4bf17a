// A model that streams its answer over HTTP, as hosted models do (one chunk of text per line of a chunked
// response), on loopback; the test decides when each chunk goes out. And the runner that reads it.
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Message, ThreadRunner } from "@skein/thread-core";

export interface StreamedModel {
  url: string;
  /** Sends a chunk of the answer being streamed (waits for the request to arrive first). */
  send(chunk: string): Promise<void>;
  /** Ends the answer being streamed. */
  finish(): Promise<void>;
  /** Requests received, for `send` to wait on. */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startStreamedModel(): Promise<StreamedModel> {
  const responses: ServerResponse[] = [];
  const waiting: Array<() => void> = [];
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    response.flushHeaders();
    responses.push(response);
    for (const wake of waiting.splice(0)) wake();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const current = async (): Promise<ServerResponse> => {
    while (responses.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    return responses[responses.length - 1] as ServerResponse;
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    get requests() {
      return responses.length;
    },
    async send(chunk) {
      (await current()).write(`${JSON.stringify(chunk)}\n`);
    },
    async finish() {
      const response = await current();
      responses.splice(responses.indexOf(response), 1);
      response.end();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/**
 * Asks the model at `url` and streams its answer into the thread through `RunOptions.beginMessage` (one delta
 * per chunk), or, without it, appends the answer whole once it has all arrived.
 */
export function streamingRunner(url: string): ThreadRunner {
  return {
    specificationVersion: "v1",
    supports: () => true,
    async run(thread, options = {}) {
      const response = await fetch(url, {
        method: "POST",
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const reply = await options.beginMessage?.({ role: "assistant" });
      const chunks: string[] = [];
      try {
        for await (const chunk of lines(response)) {
          if (reply) await reply.write(chunk);
          else chunks.push(chunk);
        }
      } catch (error) {
        if (reply) await reply.fail(error).catch(() => undefined);
        throw error;
      }
      if (reply) return [await reply.end()] as Message[];
      return thread.append({ role: "assistant", text: chunks.join("") });
    },
  };
}

async function* lines(response: Response): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(bytes, { stream: true });
    let end = pending.indexOf("\n");
    while (end !== -1) {
      yield JSON.parse(pending.slice(0, end)) as string;
      pending = pending.slice(end + 1);
      end = pending.indexOf("\n");
    }
  }
}
