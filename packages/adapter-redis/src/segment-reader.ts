import type { Message } from "@skein/thread-core";
import type { SegmentInfo } from "@skein/thread-core/driver";
import type { KeyLayout } from "./key-layout.js";
import { decodeSegmentInfo } from "./record-codec.js";
import type { RedisConnection } from "./redis-connection.js";
import { toSortableText } from "./sortable-text.js";

/** Reads of one segment, each one command that fetches exactly what it returns. */
export class SegmentReader {
  constructor(
    readonly connection: RedisConnection,
    readonly layout: KeyLayout,
  ) {}

  async info(id: string): Promise<SegmentInfo | undefined> {
    const key = this.layout.segment(id).info;
    const reply = await this.connection.command(key, ["HMGET", key, "base", "start", "createdAt"], true);
    return decodeSegmentInfo(id, reply);
  }

  /** Own messages at offsets [from, to): one LRANGE of that range. */
  async messages(id: string, from: number, to: number): Promise<Message[]> {
    if (to <= from) return [];
    const key = this.layout.segment(id).messages;
    const items = (await this.connection.command(
      key,
      ["LRANGE", key, String(from), String(to - 1)],
      true,
    )) as string[];
    return items.map((item) => JSON.parse(item) as Message);
  }

  async locate(id: string, messageId: string, before: number) {
    const key = this.layout.segment(id).ids;
    const stored = await this.connection.command(key, ["HGET", key, toSortableText(messageId)], true);
    if (typeof stored !== "string") return undefined;
    // The offset leads the value ("offset", or "offset:fingerprint" as older versions wrote it).
    const offset = Number.parseInt(stored, 10);
    return offset < before ? { offset } : undefined;
  }

  /** System messages are few, so their offsets are read whole. */
  async systemOffsets(id: string, before: number): Promise<number[]> {
    const key = this.layout.segment(id).system;
    const offsets = (await this.connection.command(key, ["LRANGE", key, "0", "-1"], true)) as string[];
    return offsets.map(Number).filter((offset) => offset < before);
  }
}
