import { InvalidMessageError, type Message, type MessageInput } from "@skein/thread-core";
import { PACKAGE_NAME } from "./openai-client.js";

/**
 * What a run on an `openai.responses` thread tells the thread when it appends the model's output: the
 * response that now ends the chain. It travels in the appended messages' metadata, so the run goes
 * through `thread.append` like every other change (and through any wrapper a runtime puts around the
 * thread, such as thread-service's run guard), and the thread moves its pointer instead of storing the
 * messages again: they are already in the service's chain.
 */
export interface ChainAdvance {
  responseId: string;
  /** The chain's end the run started from; if the thread moved since, the advance is a conflict. */
  previousResponseId: string | null;
  /** The thread's revision when the run read it. */
  revision: number;
  /** Ids of the pending messages the run sent. */
  sent: string[];
  /** Items the run added to the chain: its input and its output. */
  items: number;
}

/** The messages with the advance in their metadata. */
export function withAdvance(messages: readonly Message[], advance: ChainAdvance): Message[] {
  return messages.map((message) => ({
    ...message,
    metadata: { ...(message.metadata ?? {}), [PACKAGE_NAME]: { ...advance } },
  }));
}

/** The advance the inputs carry, if they are a run's output; a batch that is only partly one is refused. */
export function readAdvance(inputs: readonly MessageInput[]): ChainAdvance | undefined {
  const advances = inputs.map(
    (input) => (input.metadata as Record<string, unknown> | undefined)?.[PACKAGE_NAME],
  );
  const first = advances[0] as ChainAdvance | undefined;
  if (first === undefined && advances.every((advance) => advance === undefined)) return undefined;
  const consistent =
    first !== undefined &&
    typeof first.responseId === "string" &&
    advances.every((advance) => (advance as ChainAdvance | undefined)?.responseId === first.responseId);
  if (!consistent) {
    throw new InvalidMessageError(
      `either every message of a run's output carries metadata["${PACKAGE_NAME}"] for one response, or none does`,
    );
  }
  return first;
}

/** The message without the advance, as it is returned and read back. */
export function withoutAdvance(message: Message): Message {
  if (!message.metadata || !(PACKAGE_NAME in message.metadata)) return message;
  const { [PACKAGE_NAME]: _advance, ...metadata } = message.metadata;
  const { metadata: _metadata, ...rest } = message;
  return Object.keys(metadata).length > 0 ? { ...rest, metadata } : rest;
}
