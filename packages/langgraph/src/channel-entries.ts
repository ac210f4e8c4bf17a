import { createHash } from "node:crypto";
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { ChannelEntry } from "./checkpoint-record.js";
import { CheckpointRecordError } from "./errors.js";
import { type StoredValue, sameStoredValue, storeValue } from "./stored-value.js";

/**
 * A channel of a checkpoint as a later `put` needs it: the checkpoint whose record holds the entry, and, for
 * an array, its length and `itemsHash`, so a child finds how much of it it keeps without reading its items.
 * Records written before arrays carried a hash have none: then the items are read (`ParentChannels.items`).
 */
export interface KnownChannel {
  owner: string;
  length?: number;
  hash?: string;
}

/** A checkpoint's channels, by name. */
export type KnownChannels = Map<string, KnownChannel>;

/** The parent of a checkpoint being put, as far as planning needs it. */
export interface ParentChannels {
  id: string;
  channels: KnownChannels;
  /** Every stored item of the parent's array in `channel`, or undefined if it holds no array. */
  items(channel: string): Promise<StoredValue[] | undefined>;
}

/** Entries of a record, by channel; the object has no prototype, so any channel name is safe as a key. */
export function entriesByChannel(entries: ChannelEntry[]): Map<string, ChannelEntry> {
  return new Map(entries.map((entry) => [entry.channel, entry]));
}

function arrayFacts(entry: { length?: number; hash?: string }): { length?: number; hash?: string } {
  return entry.length === undefined || entry.hash === undefined
    ? {}
    : { length: entry.length, hash: entry.hash };
}

/** What a record's entries say about its channels, without reading anything. */
export function knownChannels(checkpointId: string, entries: ChannelEntry[]): KnownChannels {
  return new Map(
    entries.map((entry) => [
      entry.channel,
      "from" in entry
        ? { owner: entry.from, ...arrayFacts(entry) }
        : "items" in entry
          ? { owner: checkpointId, ...arrayFacts(entry) }
          : { owner: checkpointId },
    ]),
  );
}

function commonPrefix(left: StoredValue[], right: StoredValue[]): number {
  const limit = Math.min(left.length, right.length);
  let index = 0;
  while (index < limit && sameStoredValue(left[index] as StoredValue, right[index] as StoredValue)) index++;
  return index;
}

/**
 * A running SHA-256 of an array's stored items: `prefix` of its first `prefixLength` items, `whole` of all.
 * Equal hashes mean equal items, so a child keeps its parent's array when the prefix matches.
 */
export function itemsHash(items: StoredValue[], prefixLength = -1): { prefix?: string; whole: string } {
  const hash = createHash("sha256");
  let prefix: string | undefined;
  for (let index = 0; index <= items.length; index++) {
    if (index === prefixLength) prefix = hash.copy().digest("hex");
    if (index < items.length) hash.update(`${JSON.stringify(items[index])}\n`);
  }
  return { ...(prefix === undefined ? {} : { prefix }), whole: hash.digest("hex") };
}

/** How many of the parent's array items a child's `items` keeps: by hash when known, else by reading them. */
async function keptItems(parent: ParentChannels, channel: string, items: StoredValue[]): Promise<number> {
  const inherited = parent.channels.get(channel);
  if (!inherited) return 0;
  if (inherited.length !== undefined && inherited.hash !== undefined) {
    if (inherited.length === 0 || inherited.length > items.length) return 0;
    // An array that is not an extension of the parent's (a message removed or edited) is stored whole.
    return itemsHash(items, inherited.length).prefix === inherited.hash ? inherited.length : 0;
  }
  const before = await parent.items(channel);
  return before ? commonPrefix(before, items) : 0;
}

/**
 * The entries of a new checkpoint's record. Channels LangGraph says changed (`newVersions`) are stored;
 * an array that extends its parent's stores only what follows it; every other channel the parent has is
 * referred to, not stored again. Planning reads nothing but the parent's record (its hashes), so a
 * conversation of n messages costs O(n) in the store and each put O(1) reads.
 */
export async function planChannels(input: {
  serde: SerializerProtocol;
  checkpointId: string;
  values: Record<string, unknown>;
  versions: Record<string, unknown>;
  newVersions: Record<string, unknown>;
  parent: ParentChannels | undefined;
}): Promise<{ entries: ChannelEntry[]; known: KnownChannels }> {
  const { serde, checkpointId, values, versions, newVersions, parent } = input;
  const entries: ChannelEntry[] = [];
  const known: KnownChannels = new Map();
  const changed = new Set(Object.keys(newVersions));
  const names = [...new Set([...Object.keys(values), ...Object.keys(versions)])].sort();
  for (const channel of names) {
    if (!changed.has(channel)) {
      const inherited = parent?.channels.get(channel);
      if (inherited) {
        entries.push({ channel, ...arrayFacts(inherited), from: inherited.owner });
        known.set(channel, inherited);
      }
      continue;
    }
    if (!Object.hasOwn(values, channel)) continue; // changed to empty
    const value = values[channel];
    if (!Array.isArray(value)) {
      entries.push({ channel, value: await storeValue(serde, value) });
      known.set(channel, { owner: checkpointId });
      continue;
    }
    const items = await Promise.all(value.map((item) => storeValue(serde, item)));
    const keep = parent ? await keptItems(parent, channel, items) : 0;
    const facts = { length: items.length, hash: itemsHash(items).whole };
    if (keep > 0 && parent) {
      const base = parent.channels.get(channel)?.owner as string;
      entries.push({ channel, base, keep, items: items.slice(keep), ...facts });
    } else {
      entries.push({ channel, items, ...facts });
    }
    known.set(channel, { owner: checkpointId, ...facts });
  }
  return { entries, known };
}

/** Looks a record's entries up by checkpoint id (through the store, or what was read already). */
export type RecordLookup = (checkpointId: string) => Promise<ChannelEntry[] | undefined>;

/**
 * Every stored item of the array in `channel` at `checkpointId`, or undefined when that channel holds no
 * array there. Walks back through bases and reads only what the result keeps.
 */
export async function storedItems(
  threadId: string,
  lookup: RecordLookup,
  checkpointId: string,
  channel: string,
): Promise<StoredValue[] | undefined> {
  const pieces: StoredValue[][] = [];
  let need = Number.POSITIVE_INFINITY;
  let current = checkpointId;
  // Until a base is followed, a missing channel or a non-array value means "no array here"; after, damage.
  let followingBase = false;
  const seen = new Set<string>();
  for (;;) {
    if (seen.has(current)) throw new CheckpointRecordError(threadId, `channel ${channel} refers in a loop`);
    seen.add(current);
    const entries = await lookup(current);
    const entry = entries && entriesByChannel(entries).get(channel);
    if (!entry || "value" in entry) {
      if (!followingBase && (entries || current === checkpointId)) return undefined;
      throw new CheckpointRecordError(
        threadId,
        `channel ${JSON.stringify(channel)} refers to checkpoint ${JSON.stringify(current)}, which holds no array for it`,
      );
    }
    if ("from" in entry) {
      current = entry.from;
      continue;
    }
    const keep = entry.base === undefined ? 0 : (entry.keep ?? 0);
    if (need > keep) pieces.push(entry.items.slice(0, need - keep));
    need = Math.min(need, keep);
    if (need === 0 || entry.base === undefined) break;
    current = entry.base;
    followingBase = true;
  }
  return pieces.reverse().flat();
}
