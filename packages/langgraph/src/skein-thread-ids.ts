import { createHash } from "node:crypto";
import { MAX_THREAD_ID_LENGTH } from "@skein/thread-core";

/** How long the thread part of an id may be before it is replaced by its hash, so a namespace always fits. */
const MAX_THREAD_PART = 120;

/** Characters kept as they are; every other UTF-16 code unit becomes `%` and its four hex digits, `%` included, so the map is injective. */
const PLAIN = /^[A-Za-z0-9._~:@!$&'()*+,;=-]$/;

function escapePart(text: string): string {
  let escaped = "";
  for (let index = 0; index < text.length; index++) {
    const character = text[index] as string;
    escaped += PLAIN.test(character) ? character : `%${text.charCodeAt(index).toString(16).padStart(4, "0")}`;
  }
  return escaped;
}

/** `#` never appears in an escaped part, so a hashed part cannot meet a plain one. */
function hashPart(text: string): string {
  // UTF-16 code units, so strings that differ only in lone surrogates still hash apart.
  return `#${createHash("sha256").update(Buffer.from(text, "utf16le")).digest("hex")}`;
}

/** The first part of every skein thread id of one LangGraph thread: `<prefix><thread>/`. */
export function threadPrefix(prefix: string, threadId: string): string {
  const escaped = escapePart(threadId);
  return `${prefix}${escaped.length <= MAX_THREAD_PART ? escaped : hashPart(threadId)}/`;
}

/**
 * The skein thread that holds the checkpoints of one LangGraph thread and checkpoint namespace. Distinct
 * (thread, namespace) pairs get distinct ids; all namespaces of a thread share `threadPrefix`.
 */
export function skeinThreadId(prefix: string, threadId: string, namespace: string): string {
  const head = threadPrefix(prefix, threadId);
  const escaped = escapePart(namespace);
  return head.length + escaped.length <= MAX_THREAD_ID_LENGTH ? head + escaped : head + hashPart(namespace);
}
