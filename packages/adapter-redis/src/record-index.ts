import type { RecordSummary } from "@skein/thread-core/driver";
import type { KeyLayout } from "./key-layout.js";
import type { RedisConnection } from "./redis-connection.js";
import { fromSortableText, PAST_EVERY_CHARACTER, toSortableText } from "./sortable-text.js";

/**
 * The ids of every record, in one sorted set (`<prefix>:index`) read with ZRANGEBYLEX. On Cluster it
 * lives in one slot, apart from the records, so it is kept beside them in steps whose order makes it
 * right in the end: an id is added before and again after its record is created, and removed only after
 * its record is gone, re-added if a record appeared meanwhile. An entry whose record is gone (a crash
 * between steps, or an expired thread) is skipped by `list` and removed then.
 */
export class RecordIndex {
  constructor(
    readonly connection: RedisConnection,
    readonly layout: KeyLayout,
  ) {}

  async add(id: string): Promise<void> {
    await this.connection.command(this.layout.index, ["ZADD", this.layout.index, "0", toSortableText(id)]);
  }

  async remove(id: string): Promise<void> {
    await this.connection.command(this.layout.index, ["ZREM", this.layout.index, toSortableText(id)]);
    const record = this.layout.record(id).record;
    if ((await this.connection.command(record, ["EXISTS", record], true)) === 1) await this.add(id);
  }

  /** Ids in ascending code-unit order after `after`, starting with `prefix`, with their type and update time. */
  async list(options: { prefix?: string; after?: string; limit: number }): Promise<RecordSummary[]> {
    const prefix = toSortableText(options.prefix ?? "");
    // Compared as given: code-unit order is the order the encoding keeps.
    const afterPrefix = options.after !== undefined && options.after >= (options.prefix ?? "");
    let low: string | Buffer = afterPrefix
      ? `(${toSortableText(options.after as string)}`
      : prefix
        ? `[${prefix}`
        : "-";
    const high = prefix ? Buffer.concat([Buffer.from(`[${prefix}`), PAST_EVERY_CHARACTER]) : "+";
    const found: RecordSummary[] = [];
    while (found.length < options.limit) {
      const wanted = options.limit - found.length;
      const members = (await this.connection.command(
        this.layout.index,
        ["ZRANGEBYLEX", this.layout.index, low, high, "LIMIT", "0", String(wanted)],
        true,
      )) as string[];
      const summaries = await Promise.all(members.map((member) => this.#summary(fromSortableText(member))));
      for (const [index, summary] of summaries.entries()) {
        if (summary) found.push(summary);
        else await this.remove(fromSortableText(members[index] as string));
      }
      if (members.length < wanted) break;
      low = `(${members[members.length - 1]}`;
    }
    return found;
  }

  async #summary(id: string): Promise<RecordSummary | undefined> {
    const key = this.layout.record(id).record;
    const [type, updatedAt] = (await this.connection.command(
      key,
      ["HMGET", key, "type", "updatedAt"],
      true,
    )) as Array<string | null>;
    if (type === null || type === undefined) return undefined;
    return { id, type: fromSortableText(type), updatedAt: updatedAt as string };
  }
}
