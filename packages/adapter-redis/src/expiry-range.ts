import type { ExpiryQuery } from "@skein/thread-core/driver";
import { decodeKey, encodeKey, KEY_END, type MemberPosition } from "./catalogue-members.js";
import { fromSortableText, PAST_EVERY_CHARACTER, toSortableText } from "./sortable-text.js";

/**
 * The expiry members of a scope's catalogue order set start with this: `* NUL e NUL <expiresAt> NUL 1 <id>`,
 * so one `ZRANGE … BYLEX` walks a scope's threads by their own `expiresAt`, then id (thread-core's order),
 * and stops at the first that expires after the sweep's instant.
 */
export const EXPIRY_START = "*\u0000e\u0000";

/** What `ZRANGE … BYLEX` is asked for one page of a sweep's `expiring` query, and how members read back. */
export class ExpiryRange {
  readonly low: Buffer;
  readonly high: Buffer;

  constructor(query: ExpiryQuery) {
    this.low = query.after
      ? Buffer.from(`(${ExpiryRange.member(query.after)}`)
      : Buffer.from(`[${EXPIRY_START}`);
    // Every id whose key is at most `until`: the key ends with KEY_END, below every byte an id may start with.
    this.high = Buffer.concat([
      Buffer.from(`[${EXPIRY_START}${encodeKey(query.until)}${KEY_END}`),
      PAST_EVERY_CHARACTER,
    ]);
  }

  /** The member of a thread (stored id) that expires at `key`. */
  static member(position: MemberPosition): string {
    return `${EXPIRY_START}${encodeKey(position.key)}${KEY_END}${toSortableText(position.id)}`;
  }

  /** The position (`expiresAt`, stored id) a member holds. */
  static position(member: string): MemberPosition {
    const rest = member.slice(EXPIRY_START.length);
    const end = rest.indexOf(KEY_END);
    return { key: decodeKey(rest.slice(0, end)), id: fromSortableText(rest.slice(end + KEY_END.length)) };
  }

  /** The range after `member`, walking up. */
  after(member: string): { low: Buffer; high: Buffer } {
    return { low: Buffer.concat([Buffer.from("("), Buffer.from(member)]), high: this.high };
  }
}
