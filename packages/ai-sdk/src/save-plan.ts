import { canonicalJson } from "@skein/thread-core/driver";
import type { UIMessage } from "ai";
import { ChatMismatchError, MessageMappingError } from "./errors.js";
import { fromUIMessages } from "./from-ui-messages.js";
import { toUIMessages, type UIMessageGroup } from "./to-ui-messages.js";

/** Where a rollback goes to replace a thread from its first message. */
export const START = "start";

/**
 * What a save writes: nothing, new messages after the thread's end, or new messages in place of the thread's
 * suffix from a UI message on (after `target`: the last skein message before it, or `"start"`).
 */
export type SavePlan =
  | { kind: "none" }
  | { kind: "append"; messages: UIMessage[] }
  | { kind: "replace"; target: string; from: string; fromRole: UIMessage["role"]; messages: UIMessage[] };

/**
 * The part of a thread a save is planned on: its UI messages from some message on (all of them, or from the
 * client's first message), the skein message before that part, and which of the client's ids the thread holds.
 */
export interface StoredChat {
  groups: UIMessageGroup[];
  /** The id of the skein message before `groups`, or undefined when they start the thread. */
  before: string | undefined;
  /** Whether the thread holds a message with this id (anywhere, not only in `groups`). */
  holds: (id: string) => boolean;
}

/**
 * Lines the client's messages up with the thread's, from the first of them on: equal messages are kept, and at
 * the first one that differs (the same id with new parts, or another message where the thread has one) the
 * thread is made to hold the client's messages from there. A list of messages the thread does not hold at all
 * is appended, so a client that sends only its new message works too.
 */
export function planSave(threadId: string, stored: StoredChat, uiMessages: readonly UIMessage[]): SavePlan {
  assertUniqueIds(uiMessages);
  const first = uiMessages[0];
  if (!first) return { kind: "none" };
  const { groups } = stored;
  const anchor = groups.findIndex((group) => group.message.id === first.id);
  if (anchor < 0) {
    const held = uiMessages.find((message) => stored.holds(message.id));
    if (held) throw new ChatMismatchError(threadId, first.id);
    return { kind: "append", messages: [...uiMessages] };
  }
  let given = 0;
  let kept = anchor;
  while (given < uiMessages.length && kept < groups.length) {
    const message = uiMessages[given] as UIMessage;
    const group = groups[kept] as UIMessageGroup;
    if (message.id !== group.message.id || !sameMessage(message, group.message)) break;
    given++;
    kept++;
  }
  // Everything the client sent is in the thread (it may hold more after: the client sent an older list).
  if (given === uiMessages.length) return { kind: "none" };
  const rest = uiMessages.slice(given);
  if (kept === groups.length) return { kind: "append", messages: rest };
  const replaced = groups[kept] as UIMessageGroup;
  const target = kept === 0 ? (stored.before ?? START) : (groups[kept - 1] as UIMessageGroup).last;
  return {
    kind: "replace",
    target,
    from: replaced.message.id,
    fromRole: replaced.message.role,
    messages: rest,
  };
}

/** Equal as the thread would give the client's message back: compared after the same mapping, key order aside. */
function sameMessage(given: UIMessage, stored: UIMessage): boolean {
  const [roundTrip] = toUIMessages(JSON.parse(JSON.stringify(fromUIMessages([given]))));
  return canonicalJson(roundTrip) === canonicalJson(stored);
}

function assertUniqueIds(uiMessages: readonly UIMessage[]): void {
  const seen = new Set<string>();
  uiMessages.forEach((message, index) => {
    if (seen.has(message.id)) {
      throw new MessageMappingError(`the id ${JSON.stringify(message.id)} is given to two messages`, [
        index,
        "id",
      ]);
    }
    seen.add(message.id);
  });
}
