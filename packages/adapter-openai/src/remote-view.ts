import { estimateTokens, type Message, type ViewOptions } from "@skein/thread-core";
import { selectView } from "@skein/thread-core/driver";
import { MAX_PAGE, type RemoteHistory } from "./remote-history.js";

/**
 * `thread.view(options)` for a remote thread: reads newest first only until the budget is full, then
 * selects with thread-core's `selectView`, so tool calls stay whole exactly as in local threads.
 *
 * A remote thread has no index of its system messages, so `keepSystem` keeps those it reads, plus the
 * system messages that open the thread (one extra request for its first page), not ones in between.
 */
export async function remoteView(history: RemoteHistory, options: ViewOptions = {}): Promise<Message[]> {
  const countTokens = options.countTokens ?? estimateTokens;
  const maxMessages = options.maxMessages ?? Number.POSITIVE_INFINITY;
  const maxTokens = options.maxTokens ?? Number.POSITIVE_INFINITY;
  const newest: Message[] = [];
  let messages = 0;
  let tokens = 0;
  let whole = true;
  const pageSize = Number.isFinite(maxMessages) ? Math.min(MAX_PAGE, maxMessages + 1) : MAX_PAGE;
  for await (const message of history.newestFirst(pageSize)) {
    newest.push(message);
    if (message.role !== "system") messages++;
    if (Number.isFinite(maxTokens)) tokens += countTokens(message);
    if (messages > maxMessages || tokens > maxTokens) {
      whole = false;
      break;
    }
  }
  const window = newest.reverse();
  const opening = options.keepSystem === false || whole ? [] : await openingSystemMessages(history, window);
  const all = [...opening, ...window];
  const systemAt = options.keepSystem === false ? [] : positionsOfSystem(all);
  return selectView({ length: all.length, read: async (from, to) => all.slice(from, to), systemAt }, options);
}

/** The system messages at the very start of the thread that the window does not already hold. */
async function openingSystemMessages(history: RemoteHistory, window: readonly Message[]): Promise<Message[]> {
  const held = new Set(window.map((message) => message.id));
  const opening: Message[] = [];
  for await (const message of history.oldestFirst(20)) {
    if (message.role !== "system" || held.has(message.id)) break;
    opening.push(message);
  }
  return opening;
}

function positionsOfSystem(messages: readonly Message[]): number[] {
  const positions: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === "system") positions.push(index);
  });
  return positions;
}
