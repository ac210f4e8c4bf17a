import type OpenAI from "openai";
import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseOutputItem,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import {
  OpenAIServiceError,
  OpenAIUnavailableError,
  ResponseFailedError,
  RunAbortedError,
} from "./errors.js";
import { mapServiceError } from "./service-call.js";

export interface ResponseRunOptions {
  signal?: AbortSignal;
  /** Read the output as server-sent events, item by item. */
  stream: boolean;
  threadId: string;
  /** Called with each output item as it completes, in order; awaited before the next. */
  onItem: (item: ResponseOutputItem) => Promise<void>;
}

/**
 * Creates a response and hands each output item over as it completes. Resolves with the finished
 * response (status `completed` or `incomplete`); a `failed` response is a `ResponseFailedError`.
 */
export async function runResponse(
  client: OpenAI,
  body: ResponseCreateParamsNonStreaming,
  options: ResponseRunOptions,
): Promise<Response> {
  const context = { operation: "responses.create", threadId: options.threadId };
  try {
    const response = options.stream
      ? await streamed(client, body, options)
      : await whole(client, body, options);
    if (options.signal?.aborted) throw aborted(options);
    return response;
  } catch (error) {
    if (RunAbortedError.isInstance(error)) throw error;
    if (options.signal?.aborted) throw aborted(options, error);
    throw mapServiceError(error, client, context);
  }
}

async function whole(
  client: OpenAI,
  body: ResponseCreateParamsNonStreaming,
  options: ResponseRunOptions,
): Promise<Response> {
  const response = await client.responses.create(body, { signal: options.signal });
  failIfFailed(response);
  for (const item of response.output) {
    if (options.signal?.aborted) throw aborted(options);
    await options.onItem(item);
  }
  return response;
}

async function streamed(
  client: OpenAI,
  body: ResponseCreateParamsNonStreaming,
  options: ResponseRunOptions,
): Promise<Response> {
  const events = await client.responses.create({ ...body, stream: true }, { signal: options.signal });
  let finished: Response | undefined;
  for await (const event of events as AsyncIterable<ResponseStreamEvent>) {
    if (options.signal?.aborted) throw aborted(options);
    switch (event.type) {
      case "response.output_item.done":
        await options.onItem(event.item);
        break;
      case "response.completed":
      case "response.incomplete":
        finished = event.response;
        break;
      case "response.failed":
        failIfFailed(event.response);
        break;
      case "error":
        throw new OpenAIServiceError(`The response stream failed: ${event.message}`, {
          operation: "responses.create",
          ...(event.code ? { code: event.code } : {}),
        });
    }
  }
  // The SDK ends the stream quietly when the signal aborts it.
  if (options.signal?.aborted) throw aborted(options);
  if (!finished) {
    throw new OpenAIUnavailableError("The response stream ended before the response completed.", {
      operation: "responses.create",
    });
  }
  return finished;
}

function failIfFailed(response: Response): void {
  if (response.status !== "failed") return;
  throw new ResponseFailedError(
    response.id,
    response.error?.code,
    response.error?.message ?? "no reason given",
  );
}

/** The signal stopped the run; the runner adds the messages it appended before. */
function aborted(options: ResponseRunOptions, cause?: unknown): RunAbortedError {
  return new RunAbortedError(options.threadId, [], cause === undefined ? {} : { cause });
}
