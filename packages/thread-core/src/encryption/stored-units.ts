import { ConflictError } from "../errors.js";
import type { SegmentInfo } from "../local/log-driver.js";
import { type Message, messageConflict } from "../message.js";

/** Messages to write at own offsets `from…` of a segment. */
export interface SegmentImport {
  segment: SegmentInfo;
  messages: Message[];
  from: number;
  /** Whose key seals them (per-owner keys). */
  owner: string | undefined;
}

/** What `importWithStoredUnits` needs of the encrypting driver. */
export interface StoredUnitAccess {
  /** The entry's messages sealed under the current key. */
  seal(entry: SegmentImport): Promise<Message[]>;
  /** The segment's messages as the store holds them. */
  stored(segment: string, from: number, to: number): Promise<Message[]>;
  open(message: Message, segment: string, offset: number): Promise<Message>;
}

/**
 * Imports sealed under the current key. A store compares a re-imported message with the one it holds byte
 * for byte; one sealed under an older key, or stamped with another `createdAt`, differs though its plaintext is
 * equal, so on a `ConflictError` each message the store already holds is opened and, when equal, handed down
 * exactly as it is stored.
 */
export async function importWithStoredUnits(
  imports: SegmentImport[],
  write: (sealed: SegmentImport[]) => Promise<void>,
  access: StoredUnitAccess,
): Promise<void> {
  const sealed = await Promise.all(
    imports.map(async (entry) => ({ ...entry, messages: await access.seal(entry) })),
  );
  try {
    await write(sealed);
  } catch (error) {
    if (!ConflictError.isInstance(error)) throw error;
    const reconciled = await Promise.all(
      imports.map((entry, index) => storedWhereEqual(entry, sealed[index] as SegmentImport, access)),
    );
    if (reconciled.every((entry, index) => entry === sealed[index])) throw error;
    await write(reconciled);
  }
}

async function storedWhereEqual(
  entry: SegmentImport,
  sealed: SegmentImport,
  access: StoredUnitAccess,
): Promise<SegmentImport> {
  const { segment, messages, from } = entry;
  const stored = await access.stored(segment.id, from, from + messages.length).catch(() => []);
  if (stored.length === 0) return sealed;
  const units = await Promise.all(
    sealed.messages.map(async (unit, index) => {
      const held = stored[index];
      if (!held || held.id !== unit.id) return unit;
      const opened = await access.open(held, segment.id, from + index);
      return messageConflict(opened, messages[index] as Message) ? unit : held;
    }),
  );
  return { ...sealed, messages: units };
}
