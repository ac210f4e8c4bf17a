// The SDK's history rules on plain item lists, which the session applies to what its thread holds.
import type { AgentInputItem, SessionHistoryMutation } from "@openai/agents-core";
import { canonicalJson } from "@skein/thread-core/driver";
import { encodeValue } from "./stored-values.js";

/** An item as canonical JSON: equal items, equal text, whatever their key order. */
export function canonicalItem(item: unknown): string {
  return item === undefined ? "" : canonicalJson(encodeValue(item));
}

/**
 * `applySessionHistoryMutations` of `@openai/agents-core`, rule for rule: for each `replace_function_call`
 * in turn, the replacement takes the place of the first function call with its callId and every later call
 * with that callId is dropped; a mutation kind it does not know is skipped. The SDK's tests and skein's
 * (test/history-mutations.test.ts) compare the two on every small history.
 */
export function applyMutations(
  items: readonly AgentInputItem[],
  mutations: readonly SessionHistoryMutation[],
): AgentInputItem[] {
  let next = [...items];
  for (const mutation of mutations) {
    if (mutation.type !== "replace_function_call") continue;
    let replaced = false;
    next = next.flatMap((item) => {
      if (item.type !== "function_call" || item.callId !== mutation.callId) return [item];
      if (replaced) return [];
      replaced = true;
      return [structuredClone(mutation.replacement)];
    });
  }
  return next;
}
