import { type LogPoint, type Message, PointNotFoundError, type PointTarget, START } from "@skein/thread-core";
import type OpenAI from "openai";
import { SOURCE } from "./errors.js";
import { MAX_PAGE } from "./remote-history.js";
import { ResponsesHistory } from "./responses-history.js";
import { type ChainPoint, currentPoint, logPointOf, type OpenAIResponsesState } from "./responses-state.js";
import { callService } from "./service-call.js";

/**
 * Where a fork, rollback or `at` goes. `"start"` (before the first message), checkpoints and points from
 * `history()` cost no request. A message
 * id costs one read of the chain (1 request per 100 items) plus one `responses.retrieve` per response
 * between the target and the end: the point is the last response that ends at or before the message, and
 * the messages after that response, up to the target, become pending input to send again.
 */
export async function resolvePoint(
  client: OpenAI,
  state: OpenAIResponsesState,
  target: PointTarget | undefined,
): Promise<ChainPoint> {
  const current = currentPoint(state);
  if (target === undefined) return structuredClone(current);
  if (target === START) return { responseId: null, length: 0, pending: [] };
  const checkpointId = typeof target === "string" ? target : "id" in target ? target.id : undefined;
  const checkpoint = state.checkpoints.find((record) => record.id === checkpointId);
  if (checkpoint)
    return structuredClone({
      responseId: checkpoint.responseId,
      length: checkpoint.length,
      pending: checkpoint.pending,
    });
  if (typeof target !== "string") {
    if ("id" in target) throw new PointNotFoundError(state.id, target.id, { source: SOURCE });
    return knownPoint(state, target);
  }
  const inPending = state.pending.findIndex((message) => message.id === target);
  if (inPending >= 0) return structuredClone({ ...current, pending: state.pending.slice(0, inPending + 1) });
  return locateMessage(client, state, target);
}

/** A `LogPoint` this thread recorded (its current point, a checkpoint's, or one of its history's). */
function knownPoint(state: OpenAIResponsesState, target: LogPoint): ChainPoint {
  const same = (point: LogPoint) => point.segment === target.segment && point.offset === target.offset;
  const candidates: ChainPoint[] = [currentPoint(state), ...state.checkpoints];
  const withPending = candidates.find((point) => same(logPointOf(point)));
  if (withPending)
    return structuredClone({
      responseId: withPending.responseId,
      length: withPending.length,
      pending: withPending.pending,
    });
  // Points in events carry no pending input, so only those at a response's end can be gone back to.
  const recorded = state.events.flatMap((event) =>
    event.kind === "rollback" ? [event.from, event.to] : event.kind === "fork" ? [event.from] : [],
  );
  const atResponseEnd = recorded.find((point) => same(point) && point.offset === 0);
  if (!atResponseEnd)
    throw new PointNotFoundError(state.id, `${target.segment}:${target.offset}`, { source: SOURCE });
  const responseId = atResponseEnd.segment === "root" ? null : atResponseEnd.segment;
  return { responseId, length: atResponseEnd.position, pending: [] };
}

/** The chain point just after a message of the chain; see `resolvePoint` for the cost. */
async function locateMessage(client: OpenAI, state: OpenAIResponsesState, id: string): Promise<ChainPoint> {
  const notFound = () => new PointNotFoundError(state.id, id, { source: SOURCE });
  if (state.previousResponseId === null) throw notFound();
  const history = new ResponsesHistory(
    client,
    state.id,
    { ...currentPoint(state), pending: [] },
    state.createdAt,
  );
  const chain: Message[] = [];
  for await (const message of history.oldestFirst(MAX_PAGE)) chain.push(message);
  const target = chain.findIndex((message) => message.id === id);
  if (target < 0) throw notFound();
  const positions = new Map(chain.map((message, index) => [message.id, index]));
  let responseId: string | null = state.previousResponseId;
  let response = await history.response();
  for (;;) {
    const last = response.output.at(-1)?.id;
    const end = last === undefined ? undefined : positions.get(last);
    if (end !== undefined && end <= target) {
      return { responseId, length: end + 1, pending: chain.slice(end + 1, target + 1) };
    }
    responseId = response.previous_response_id ?? null;
    if (responseId === null) return { responseId: null, length: 0, pending: chain.slice(0, target + 1) };
    const previous: string = responseId;
    response = await callService(client, { operation: "responses.retrieve", threadId: state.id }, () =>
      client.responses.retrieve(previous),
    );
  }
}
