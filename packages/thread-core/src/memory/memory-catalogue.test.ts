import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CatalogueQuery } from "../catalogue/list-query.js";
import type { LogRecord, StoredRecord } from "../local/log-driver.js";
import { MemoryCatalogue } from "./memory-catalogue.js";
import { SortedPositions } from "./sorted-positions.js";

function record(id: string, owner: string | undefined, updatedAt: string): LogRecord {
  return {
    kind: "log",
    id,
    type: "memory",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt,
    revision: 0,
    metadata: {},
    context: owner === undefined ? {} : { $catalogue: { owner } },
    head: `seg-${id}`,
    length: 0,
    events: [],
  };
}

const time = (index: number) => new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString();

describe("MemoryCatalogue", () => {
  it("reads only the page for one owner's newest threads, however many the store holds", () => {
    const catalogue = new MemoryCatalogue();
    const records = new Map<string, StoredRecord>();
    for (let index = 0; index < 20_000; index++) {
      const stored = record(`t-${index}`, index % 20 === 0 ? "u-7" : `other-${index % 7}`, time(index));
      records.set(stored.id, stored);
      catalogue.put(stored);
    }
    let reads = 0;
    const read = (id: string) => {
      reads++;
      return records.get(id);
    };
    const query: CatalogueQuery = { scope: "", owner: "u-7", order: "updated", direction: "desc", limit: 20 };
    const page = catalogue.page(query, read);
    expect(page.map((item) => item.id)).toEqual(
      Array.from({ length: 20 }, (_, index) => `t-${19_980 - 20 * index}`),
    );
    expect(reads).toBe(20);
    // An append moves the thread to the newest end; the next page starts after the cursor.
    const moved = record("t-0", "u-7", time(30_000));
    catalogue.put(moved, records.get("t-0"));
    records.set("t-0", moved);
    reads = 0;
    expect(catalogue.page({ ...query, limit: 1 }, read).map((item) => item.id)).toEqual(["t-0"]);
    const last = page[19] as LogRecord;
    expect(
      catalogue
        .page({ ...query, limit: 2, after: { key: last.updatedAt, id: last.id } }, read)
        .map((item) => item.id),
    ).toEqual(["t-19580", "t-19560"]);
    expect(reads).toBe(3);
    expect(catalogue.count({ scope: "", owner: "u-7" }, read)).toBe(1000);
  });
});

describe("SortedPositions", () => {
  it("walks what was added and not removed, in order, from any position", () => {
    const position = fc.record({ key: fc.constantFrom("", "a", "b", "c"), id: fc.string({ maxLength: 3 }) });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), position), { maxLength: 60 }),
        position,
        fc.constantFrom("asc" as const, "desc" as const),
        (operations, after, direction) => {
          const sorted = new SortedPositions();
          const expected = new Map<string, { key: string; id: string }>();
          for (const [add, item] of operations) {
            const name = JSON.stringify([item.key, item.id]);
            if (add) {
              // Adding a position already there keeps one copy.
              sorted.add(item);
              expected.set(name, item);
            } else {
              sorted.remove(item);
              expected.delete(name);
            }
          }
          const compare = (a: { key: string; id: string }, b: { key: string; id: string }) =>
            a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
          const all = [...expected.values()].sort(compare);
          const want =
            direction === "asc"
              ? all.filter((item) => compare(item, after) > 0)
              : all.filter((item) => compare(item, after) < 0).reverse();
          expect([...sorted.walk(direction, after)]).toEqual(want);
          expect([...sorted.walk("asc")]).toEqual(all);
          expect(sorted.size).toBe(all.length);
          // `next` by value gives the same sequence as `walk`.
          const stepped: { key: string; id: string }[] = [];
          for (let at = sorted.next(direction, after); at; at = sorted.next(direction, at)) stepped.push(at);
          expect(stepped).toEqual(want);
        },
      ),
    );
  });
});
