import { createHash } from "node:crypto";

/** Who talks in a pair thread, and the thread id they map to. */
export interface PairKey {
  chatId: string;
  /** Both participants' names, sorted. For a user ↔ agent thread, the user's name is one of them. */
  participants: [string, string];
  /**
   * The user's name when this is a user ↔ agent thread (`manager.get(chatId, agent)`); absent between two
   * agents, even when one of them is called like the user.
   */
  user?: string;
  threadId: string;
}

/** Two agents (the same key in either order), or the chat's user and one agent. */
export type PairParticipants = [string, string] | { user: string; agent: string };

/**
 * The key of a pair thread. The thread id is `pair.<chat>.<pair>`, where each part is the first 22 characters
 * of the base64url SHA-256 of a JSON text: `<chat>` of the chat id (`JSON.stringify(chatId)`), and `<pair>`
 * of the sorted pair of agent names (`JSON.stringify(["agentA", "agentB"])`) or, for the user ↔ agent thread,
 * of `JSON.stringify({ user, agent })`. So no two different (chat, pair) keys share a thread whatever the names
 * hold, an agent named like the user never shares the user's thread, and `store.list({ prefix: "pair.<chat>." })`
 * finds a chat's pairs.
 * @example pairKey("chat-1", ["planner", "writer"]).threadId; pairKey("chat-1", { user: "user", agent: "planner" });
 */
export function pairKey(chatId: string, pair: PairParticipants): PairKey {
  const user = Array.isArray(pair) ? undefined : pair.user;
  const names: [string, string] = Array.isArray(pair) ? [pair[0], pair[1]] : [pair.user, pair.agent];
  for (const name of [chatId, ...names]) {
    if (typeof name !== "string" || name.length === 0)
      throw new TypeError("chat ids and names are non-empty strings");
  }
  const participants = [...names].sort() as [string, string];
  const member = Array.isArray(pair) ? participants : { user: names[0], agent: names[1] };
  return {
    chatId,
    participants,
    ...(user === undefined ? {} : { user }),
    threadId: `${chatPrefix(chatId)}${digest(member)}`,
  };
}

/** What a pair thread's metadata says of its pair, so `list` can tell the pairs of a chat apart. */
export function pairMetadata(key: PairKey): Record<string, unknown> {
  return {
    chatId: key.chatId,
    participants: key.participants,
    ...(key.user === undefined ? {} : { user: key.user }),
  };
}

/** The prefix every pair thread id of a chat starts with. */
export function chatPrefix(chatId: string): string {
  return `pair.${digest(chatId)}.`;
}

/** Hashes keep ids short and make every (chat, pair) distinct whatever characters the names hold. */
function digest(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("base64url").slice(0, 22);
}
