// What callers hand the session, read once and checked before anything is written: item lists, history
// transactions and history mutations. Each reader returns a snapshot, so a getter runs once and a caller
// changing its objects afterwards changes nothing.
import type { AgentInputItem, SessionHistoryMutation, SessionHistoryTransaction } from "@openai/agents-core";
import { SessionHistoryError, SessionItemError } from "./session-errors.js";
import { decodeValue, encodeValue, isPlainObject, readField } from "./stored-values.js";

/** A list of items, checked and copied: an array of item objects, each one a value the session gives back equal. */
export function readItems(items: unknown, name = "items"): AgentInputItem[] {
  return readItemList(items, name).copies;
}

/** `readItems`, with the items in the stored encoding (`encodeValue`) too. */
function readItemList(items: unknown, name: string): { encoded: unknown[]; copies: AgentInputItem[] } {
  if (!Array.isArray(items)) {
    throw new SessionItemError(
      [name],
      `is ${describe(items)}, not an array of items (pass one item as [item])`,
    );
  }
  const encoded = encodeValue(items, [name]) as unknown[];
  const copies = encoded.map((item, index) => {
    const copy = decodeValue(item);
    if (!isPlainObject(copy)) {
      throw new SessionItemError(
        [name, index],
        `is ${describe(copy)}, not an item object (such as { role: "user", content: "hi" })`,
      );
    }
    return copy as unknown as AgentInputItem;
  });
  return { encoded, copies };
}

/** A history transaction read once: its operation id, a copy of the transaction, and that copy encoded. */
export interface TransactionSnapshot {
  operationId: string;
  transaction: SessionHistoryTransaction;
  /** The transaction in the stored encoding: what its digest is made from. */
  encoded: Record<string, unknown>;
}

const TRANSACTION_FIELDS: Record<string, readonly string[]> = {
  append_items: ["items"],
  replace_suffix: ["expectedSuffix", "replacement"],
};

/**
 * The arguments of `applyHistoryTransaction`, each field read once. An accessor that throws is reported
 * without its error, whose text is the caller's and may hold a secret.
 */
export function readTransactionArgs(args: unknown): TransactionSnapshot {
  if (typeof args !== "object" || args === null) {
    throw new SessionHistoryError(
      `applyHistoryTransaction takes { operationId, transaction }, not ${describe(args)}; nothing was written.`,
    );
  }
  let operationId: unknown;
  let transaction: unknown;
  try {
    operationId = Reflect.get(args, "operationId");
    transaction = Reflect.get(args, "transaction");
  } catch {
    throw new SessionHistoryError(
      "The history transaction's arguments could not be read (a getter threw; its error is not quoted, it may hold a secret); nothing was written. Pass plain data.",
    );
  }
  if (typeof operationId !== "string" || operationId.trim() === "") {
    throw new SessionHistoryError(
      "A history transaction needs a non-empty operationId; nothing was written.",
    );
  }
  if (!isPlainObject(transaction)) {
    throw new SessionHistoryError(
      `A history transaction must be an object ({ type: "append_items", items } or { type: "replace_suffix", expectedSuffix, replacement }), not ${describe(transaction)}; nothing was written.`,
    );
  }
  const type = readField(transaction, "type", ["type"]);
  const fields = typeof type === "string" ? TRANSACTION_FIELDS[type] : undefined;
  if (fields === undefined || !Object.hasOwn(TRANSACTION_FIELDS, type as string)) {
    throw new SessionHistoryError(
      'A history transaction\'s type must be "append_items" or "replace_suffix"; nothing was written.',
    );
  }
  const keys = Object.keys(transaction);
  if (keys.length !== fields.length + 1 || !fields.every((field) => keys.includes(field))) {
    throw new SessionHistoryError(
      `The ${type} transaction has exactly the fields type, ${fields.join(", ")} (as the SDK defines it); nothing was written.`,
    );
  }
  const encoded: Record<string, unknown> = { type };
  const copy: Record<string, unknown> = { type };
  for (const field of fields) {
    const items = readItemList(readField(transaction, field, [field]), field);
    encoded[field] = items.encoded;
    copy[field] = items.copies;
  }
  return { operationId, transaction: copy as SessionHistoryTransaction, encoded };
}

/** The mutations of `applyHistoryMutations`, read once and copied; their replacements are checked as items. */
export function readMutations(args: unknown): SessionHistoryMutation[] {
  const mutations = isPlainObject(args) ? readField(args, "mutations", ["mutations"]) : undefined;
  if (!Array.isArray(mutations)) {
    throw new SessionHistoryError(
      `applyHistoryMutations takes { mutations: [...] }, not ${describe(args)}; nothing was written.`,
    );
  }
  return (encodeValue(mutations, ["mutations"]) as unknown[]).map(
    (mutation) => decodeValue(mutation) as SessionHistoryMutation,
  );
}

/** What a value is, for a message: its kind, never its content (which may be the caller's secret). */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof Uint8Array) return "bytes";
  if (typeof value === "object") return isPlainObject(value) ? "an object" : "a class instance";
  return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
}
