import { isDeepStrictEqual } from "node:util";
import { InvalidMessageError } from "../errors.js";
import { ContentSchema, KNOWN_CONTENT_TYPES, normalizeMessage } from "../message.js";
import type { Content, Message } from "../spec/message.js";
import type { ReplyDelta } from "../spec/streaming.js";

/**
 * A delta as stored: a content part of a known type, checked by its schema, or of a namespaced type
 * (`acme.card`), kept as the JSON it is. A string is text. Any other type is refused: a stream is read by code
 * that assembles it, which must know each part; a namespaced type names the package that knows it.
 */
export function checkDelta(delta: ReplyDelta): Content {
  if (typeof delta === "string") return { type: "text", text: delta };
  const type = (delta as { type?: unknown } | null)?.type;
  if (typeof type === "string" && NAMESPACED_TYPE.test(type)) return namespacedDelta(delta as Content);
  if (typeof type !== "string" || !KNOWN_CONTENT_TYPES.has(type)) {
    throw new InvalidMessageError(
      `a delta is a string or a content part of a type append takes (${[...KNOWN_CONTENT_TYPES].join(", ")}, or a namespaced type such as "acme.card"), not ${describe(delta)}`,
      ["delta"],
    );
  }
  const parsed = ContentSchema.safeParse(delta);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidMessageError(`a ${type} delta is malformed: ${issue?.message ?? "invalid"}`, [
      "delta",
      ...((issue?.path ?? []) as Array<string | number>),
    ]);
  }
  return parsed.data as Content;
}

/** A content type of another package: `<namespace>.<name>`, as `ai-sdk.step-start`. */
const NAMESPACED_TYPE = /^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$/i;

/** A namespaced delta as JSON keeps it (a message's own rule: no `undefined`, no functions, bounded depth). */
function namespacedDelta(delta: Content): Content {
  const [content] = normalizeMessage({ role: "assistant", contents: [delta] }, ["delta"]).contents;
  return content as Content;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  const type = (value as { type?: unknown }).type;
  return typeof type === "string"
    ? `a ${JSON.stringify(type.slice(0, 40))} part`
    : "an object without a type";
}

/** The contents of a finished reply: its deltas in order, runs of text (and of reasoning) joined into one part. */
export function mergeDeltas(deltas: readonly Content[]): Content[] {
  const contents: Content[] = [];
  for (const delta of deltas) joinDelta(contents, delta);
  return contents;
}

/** Adds `delta` to `contents` (a reply's deltas merged so far) as `mergeDeltas` does. */
export function joinDelta(contents: Content[], delta: Content): void {
  const last = contents[contents.length - 1];
  if (last && joinable(last) && joinable(delta) && last.type === delta.type) {
    contents[contents.length - 1] = { ...last, text: `${last.text}${delta.text}` } as Content;
  } else {
    contents.push({ ...delta });
  }
}

/**
 * What completes `joined` (a reply's deltas read so far, merged) into `landed` (the message the reply became), as
 * the fewest deltas: the rest of the last part's text, then the parts after it. `undefined` when `landed` does not
 * start with what was read (a writer that ended with contents of its own). A trailing error part of an
 * interrupted message is the reason `fail` gave, not a delta: it is left out.
 */
export function landedRest(joined: readonly Content[], landed: Message): Content[] | undefined {
  let contents = landed.contents;
  if (landed.status === "interrupted" && contents.at(-1)?.type === "error") contents = contents.slice(0, -1);
  if (joined.length === 0) return contents.map((content) => ({ ...content }));
  const last = joined.length - 1;
  for (let index = 0; index < last; index++) {
    if (!isDeepStrictEqual(joined[index], contents[index])) return undefined;
  }
  const read = joined[last] as Content;
  const stored = contents[last];
  if (stored === undefined) return undefined;
  const rest = contents.slice(last + 1).map((content) => ({ ...content }));
  if (isDeepStrictEqual(read, stored)) return rest;
  if (joinable(read) && joinable(stored) && read.type === stored.type && stored.text.startsWith(read.text)) {
    return [{ type: read.type, text: stored.text.slice(read.text.length) } as Content, ...rest];
  }
  return undefined;
}

/** A text or reasoning part with nothing but its text, so joining it keeps everything. */
function joinable(content: Content): content is Content & { text: string } {
  return (
    (content.type === "text" || content.type === "reasoning") &&
    typeof content.text === "string" &&
    Object.keys(content).length === 2
  );
}

/** Every batch of a reply's segment: its offsets are batch numbers, far below this. */
export const ALL_BATCHES = 2 ** 31 - 1;

/** The id of a reply segment's `index`th batch: unique within the segment, which holds nothing else. */
export function batchId(index: number): string {
  return `batch-${index}`;
}

/** One batch of deltas as the message a reply's segment stores at its offset. */
export function batchMessage(index: number, role: Message["role"], deltas: Content[]): Message {
  return { id: batchId(index), role, createdAt: new Date().toISOString(), contents: deltas };
}

/** The deltas of stored batches, in order. */
export function batchDeltas(batches: readonly Message[]): Content[] {
  return batches.flatMap((batch) => batch.contents);
}
