import { createHmac, timingSafeEqual } from "node:crypto";
import { quoteUntrusted } from "../errors.js";
import { isPlainObject } from "../json.js";
import type { LogRecord } from "../local/log-driver.js";
import { emptyContinuationBases, type SegmentLookup } from "./empty-continuations.js";
import { DecryptionError, IntegrityError } from "./encryption-errors.js";
import type { KeyRing, RingKey } from "./key-ring.js";

/** The field of a sealed context that authenticates where the thread's log ends. */
export const END_FIELD = "$end";

/**
 * The end a stored record holds: beside its context (`LogRecord.end`, JSON text, from a driver with
 * `storesEnd`), else in it (`$end`), as every record was written before ends moved out of the context.
 * Never both: the write that moves an end out of the context removes it from there in the same commit.
 */
export function storedEnd(record: Pick<LogRecord, "context" | "end">): unknown {
  if (record.end === undefined) return record.context[END_FIELD];
  try {
    return JSON.parse(record.end);
  } catch {
    // Not JSON: `checkEnd` says it is not sealed.
    return record.end;
  }
}

/** A MAC of a log record's id, creation time, head and length, under a key named by id (and owner). */
export interface SealedEnd {
  key: string;
  owner?: string;
  check: string;
  mac: string;
}

/** The parts of a record its end binds: a tail cut must change `length` (or leave messages missing). */
export type RecordEnd = Pick<LogRecord, "id" | "createdAt" | "head" | "length">;

// Messages are bound to their own offsets, so a cut from the middle of a segment fails; a cut of its last
// messages leaves a shorter, valid-looking segment, unless the record's length says otherwise. The length
// is clear (stores read it), so it is authenticated here, and with it the thread's creation time.
/** The MAC of `record`'s end under `key`. */
export function sealEnd(record: RecordEnd, key: RingKey): SealedEnd {
  return {
    key: key.id,
    ...(key.owner === undefined ? {} : { owner: key.owner }),
    check: key.check,
    mac: endMac(record, key),
  };
}

/**
 * Checks `stored` (a record's `$end`) against the record; `IntegrityError` when the record's head, length,
 * id or creation time is not the one it was written with. `missing` is what to do without one: a record
 * written in clear (under `allowPlaintext`) has none. With `segment` (the store's segment infos), an end
 * written for a segment the head continues without messages of its own (`emptyContinuationBases`: a store
 * moved the thread onto a new head without keys) holds as well: the log read through the head is the one
 * the end was written for.
 */
export async function checkEnd(
  stored: unknown,
  record: RecordEnd,
  ring: KeyRing,
  missingAllowed: boolean,
  segment?: SegmentLookup,
): Promise<void> {
  const describe = `end of thread ${quoteUntrusted(record.id)}`;
  if (stored === undefined && missingAllowed) return;
  if (
    !isPlainObject(stored) ||
    typeof stored.key !== "string" ||
    typeof stored.check !== "string" ||
    typeof stored.mac !== "string" ||
    (stored.owner !== undefined && typeof stored.owner !== "string")
  ) {
    throw new IntegrityError(describe, "it is not sealed");
  }
  const key = await ring.key(stored.key, stored.owner as string | undefined);
  if (stored.check !== key.check || stored.owner !== key.owner)
    throw new DecryptionError(stored.key, describe);
  // A MAC this process computed for exactly these fields under this key (it sealed or checked this end
  // before) holds without computing it again: the ring handed back the same key, so it was not shredded.
  if (isKnown(stored.mac, macInput(record, key), key)) return;
  const given = Buffer.from(stored.mac, "base64url");
  if (macMatches(given, record, key)) return;
  // Only once the end failed for the head itself: a record read as written costs no segment read.
  if (segment) {
    for (const base of await emptyContinuationBases(record.head, record.length, segment)) {
      if (macMatches(given, { ...record, head: base }, key)) return;
    }
  }
  throw new IntegrityError(
    describe,
    "its head, length or creation time is not the one it was written with (messages cut from its end?)",
  );
}

function macMatches(given: Buffer, record: RecordEnd, key: RingKey): boolean {
  const expected = Buffer.from(endMac(record, key), "base64url");
  return given.byteLength === expected.byteLength && timingSafeEqual(given, expected);
}

/**
 * The MACs this process computed lately, each with its input and the key it was computed under (by a number
 * given to each key object, so a key the ring let go is not kept alive here): at most KNOWN_MACS, the least
 * recently computed or found first out. A thread's reads check the end its last append sealed, or the one
 * the previous read checked: found here, that check costs no HMAC. A shredded owner's key is a new object
 * (`KeyRing.key` fetches again), so nothing computed under the old one is found for it.
 */
const knownMacs = new Map<string, string>();
const KNOWN_MACS = 4_096;
const keyNumbers = new WeakMap<RingKey, number>();
let nextKeyNumber = 0;

function knownAs(key: RingKey, input: string): string {
  let number = keyNumbers.get(key);
  if (number === undefined) {
    number = nextKeyNumber++;
    keyNumbers.set(key, number);
  }
  return `${number}\u0000${input}`;
}

function isKnown(mac: string, input: string, key: RingKey): boolean {
  const known = knownMacs.get(mac);
  if (known === undefined || known !== knownAs(key, input)) return false;
  knownMacs.delete(mac);
  knownMacs.set(mac, known);
  return true;
}

function macInput(record: RecordEnd, key: RingKey): string {
  return JSON.stringify([
    "skein.end.v1",
    key.id,
    key.owner ?? null,
    record.id,
    record.createdAt,
    record.head,
    record.length,
  ]);
}

function endMac(record: RecordEnd, key: RingKey): string {
  const input = macInput(record, key);
  const mac = createHmac("sha256", key.endKey).update(input).digest("base64url");
  knownMacs.delete(mac);
  knownMacs.set(mac, knownAs(key, input));
  if (knownMacs.size > KNOWN_MACS) knownMacs.delete(knownMacs.keys().next().value as string);
  return mac;
}
