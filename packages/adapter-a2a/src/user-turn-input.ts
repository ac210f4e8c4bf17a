import { ConflictError, type Message, type MessageInput } from "@skein/thread-core";
import { messageFingerprint, normalizeMessage } from "@skein/thread-core/driver";
import { SOURCE, unsupported } from "./errors.js";

/** What an `a2a` thread sends: one user message, with whether the caller named its id (a possible retry). */
export interface UserTurnInput {
  message: Message;
  /** Only a message whose id the caller chose can be a re-send; fresh ids need no look-up. */
  namedId: boolean;
}

/** Validates an append to an `a2a` thread: exactly one message, from the user. */
export function userTurnInput(input: MessageInput | MessageInput[]): UserTurnInput {
  const inputs = Array.isArray(input) ? input : [input];
  if (inputs.length !== 1) {
    throw unsupported(
      "a2a",
      "appending several messages at once",
      "A2A takes one message a turn; append them one by one.",
    );
  }
  const message = normalizeMessage(inputs[0]);
  if (message.role !== "user") {
    throw unsupported(
      "a2a",
      `appending ${message.role} messages`,
      "the agent writes its own replies; only user messages are sent.",
    );
  }
  return { message, namedId: inputs[0]?.id !== undefined };
}

/**
 * The stored copy of a re-sent message among `latest` (the newest task's messages): equal content makes
 * the append a no-op that returns it; other content under the same id is a `ConflictError`.
 */
export function resentMessage(message: Message, latest: readonly Message[]): Message | undefined {
  const stored = latest.find((candidate) => candidate.id === message.id);
  if (!stored) return undefined;
  if (messageFingerprint(stored) === messageFingerprint(message)) return stored;
  throw new ConflictError(
    `Message ${JSON.stringify(message.id)} was already sent with other content.`,
    message.id,
    {
      source: SOURCE,
    },
  );
}
