import type { Content, Message } from "../message.js";
import { checkedTokenCounter, checkViewOptions } from "../read-options.js";
import type { ViewOptions } from "../thread.js";

/**
 * The default token counter: about four characters of a message's contents per token, plus four tokens
 * of per-message overhead. An estimate; pass your model's tokenizer as `countTokens` for exact budgets.
 */
export function estimateTokens(message: Message): number {
  let characters = 0;
  for (const content of message.contents) {
    characters +=
      content.type === "text" || content.type === "reasoning"
        ? String(content.text).length
        : JSON.stringify(content).length;
  }
  return 4 + Math.ceil(characters / 4);
}

/** Where a view reads from: a log of `length` messages, read in ranges, with known system positions. */
export interface ViewSource {
  length: number;
  read(from: number, to: number): Promise<Message[]>;
  /**
   * Positions of the system messages among the first `length`, expected in ascending order (positions past
   * `length` are ignored); another order is accepted and sorted, at the cost of a sort per view.
   */
  systemAt: readonly number[];
}

/**
 * Picks the newest messages that fit the budget. The kept part is a suffix of the log (plus system
 * messages), cut only where no kept `function_result` lacks its `function_call`; since results follow
 * their calls, a kept call has all its results. Reads newest first and stops when the budget is full.
 */
export async function selectView(source: ViewSource, options?: ViewOptions): Promise<Message[]> {
  // Every thread type's view comes here, so a budget that is not a number is refused for all of them alike.
  options = checkViewOptions("thread.view", options);
  const countTokens = options.countTokens
    ? checkedTokenCounter("thread.view", options.countTokens)
    : estimateTokens;
  const systemPositions =
    options.keepSystem === false ? [] : source.systemAt.filter((at) => at < source.length);
  // The merge below needs them ascending, as every built-in source gives them; any other order is sorted here.
  if (!isAscending(systemPositions)) systemPositions.sort((a, b) => a - b);
  const systemMessages = await readPositions(source, systemPositions);
  const systemSet = new Set(systemPositions);
  const messageBudget = (options.maxMessages ?? Number.POSITIVE_INFINITY) - systemMessages.length;
  let tokenBudget = options.maxTokens ?? Number.POSITIVE_INFINITY;
  if (Number.isFinite(tokenBudget)) for (const message of systemMessages) tokenBudget -= countTokens(message);

  const suffix: Array<{ position: number; message: Message }> = []; // newest first
  let cut = 0; // how many of `suffix` form the best closed cut so far
  let tokens = 0;
  let kept = 0;
  const openResults = new Set<string>();
  let end = source.length;
  let pageSize = 32;
  scan: while (end > 0) {
    // No more than the message budget still wants: `view({ maxMessages: 20 })` reads 20 messages, not a page.
    const from = Math.max(0, end - Math.max(1, Math.min(pageSize, Math.ceil(messageBudget - kept))));
    const page = await source.read(from, end);
    for (let index = page.length - 1; index >= 0; index--) {
      const position = from + index;
      if (systemSet.has(position)) continue;
      const message = page[index] as Message;
      kept++;
      tokens += Number.isFinite(tokenBudget) ? countTokens(message) : 0;
      if (kept > messageBudget || tokens > tokenBudget) {
        // One message larger than the whole budget is still sent alone rather than nothing at all.
        if (suffix.length === 0 && kept <= messageBudget && isClosed(message)) {
          suffix.push({ position, message });
          cut = 1;
        }
        break scan;
      }
      suffix.push({ position, message });
      // Results first, then calls: a message holding a call and its result is closed by itself.
      for (const content of message.contents) {
        if (content.type === "function_result" && typeof content.callId === "string")
          openResults.add(content.callId);
      }
      for (const content of message.contents) {
        if (content.type === "function_call" && typeof content.callId === "string")
          openResults.delete(content.callId);
      }
      if (openResults.size === 0) cut = suffix.length;
    }
    end = from;
    if (kept >= messageBudget) break;
    pageSize = Math.min(pageSize * 2, 1024);
  }
  // Oldest first: the kept suffix (held newest first) merged with the system messages (in order) by position.
  const view: Message[] = [];
  let system = 0;
  for (let index = cut - 1; index >= 0; index--) {
    const entry = suffix[index] as { position: number; message: Message };
    while (system < systemMessages.length && (systemPositions[system] as number) < entry.position) {
      view.push(systemMessages[system++] as Message);
    }
    view.push(entry.message);
  }
  while (system < systemMessages.length) view.push(systemMessages[system++] as Message);
  return view;
}

function isAscending(positions: readonly number[]): boolean {
  for (let index = 1; index < positions.length; index++) {
    if ((positions[index] as number) < (positions[index - 1] as number)) return false;
  }
  return true;
}

/** A message that is whole by itself: every result it holds answers a call it also holds. */
function isClosed(message: Message): boolean {
  const calls = new Set(callIds(message.contents, "function_call"));
  return callIds(message.contents, "function_result").every((callId) => calls.has(callId));
}

function callIds(contents: Content[], type: "function_call" | "function_result"): string[] {
  const ids: string[] = [];
  for (const content of contents) {
    if (content.type === type && typeof content.callId === "string") ids.push(content.callId);
  }
  return ids;
}

async function readPositions(source: ViewSource, positions: number[]): Promise<Message[]> {
  return (await Promise.all(positions.map((at) => source.read(at, at + 1)))).flat();
}
