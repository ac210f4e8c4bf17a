import { catalogueOf, type ExpiryQuery, type StoredRecord } from "@skein/thread-core/driver";
import { ExpiryRange } from "./expiry-range.js";
import type { RedisCatalogue } from "./redis-catalogue.js";

/**
 * `LogDriver.expiring`: a sweep's page of a scope's threads past their own `expiresAt`, from the expiry
 * members of the scope's catalogue order set (kept by the same scripts and steps as the rest of the
 * catalogue, so in the same slot). A page costs O(log n + page): one range read and one record read per
 * member, however many threads the scope holds.
 */
export class RedisExpiryIndex {
  constructor(readonly catalogue: RedisCatalogue) {}

  async page(query: ExpiryQuery): Promise<StoredRecord[]> {
    await this.catalogue.ready();
    const { connection, layout } = this.catalogue;
    const order = layout.catalogue(query.scope).order;
    const range = new ExpiryRange(query);
    let bounds = { low: range.low, high: range.high };
    const found: StoredRecord[] = [];
    while (found.length < query.limit) {
      const wanted = query.limit - found.length;
      const members = (await connection.command(
        order,
        ["ZRANGE", order, bounds.low, bounds.high, "BYLEX", "LIMIT", "0", String(wanted)],
        true,
      )) as string[];
      const positions = members.map((member) => ExpiryRange.position(member));
      const records = await Promise.all(positions.map((position) => this.catalogue.read(position.id)));
      for (const [index, position] of positions.entries()) {
        const record = records[index];
        const expiresAt = record?.kind === "log" ? catalogueOf(record.context).expiresAt : undefined;
        // A member that no longer says when its thread expires (on Cluster, a commit whose catalogue step
        // is on its way; a crash between steps; a writer without the index) is not the thread's: the entry
        // is repaired from the record and the member removed unless the entry holds it. A sweep pages by
        // the records' own keys, so it must never be handed one at another place.
        if (!record || expiresAt !== position.key) {
          await this.catalogue.repairEntry(position.id);
          await this.catalogue.prune(position.id, members[index] as string);
          continue;
        }
        found.push(record);
      }
      const last = members[members.length - 1];
      if (members.length < wanted || last === undefined) break;
      bounds = range.after(last);
    }
    return found;
  }
}
