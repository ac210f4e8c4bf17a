import { openStore } from "@skein/thread-core";
import { LocalStore, type LogDriver } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import {
  catalogueRows,
  checkNewestPage,
  fillStore,
  newestOfOwner,
  OWNER,
} from "../src/catalogue-scenario.js";
import { fsFactory, listingKind, memoryFactory } from "../src/fresh-stores.js";

const SIZES = [
  { threads: 4, owned: 4 },
  { threads: 60, owned: 25 },
];

/** The memory store as a store without a catalogue index would be: its driver without `catalogue`. */
async function scanningStore(): Promise<LocalStore> {
  const memory = (await openStore("memory:")) as LocalStore;
  const driver = new Proxy(memory.driver, {
    get: (target, key) => {
      if (key === "catalogue") return undefined;
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as LogDriver;
  return new LocalStore({ driver, registry: memory.registry, url: "memory:" });
}

describe("the catalogue rows (issue 37)", () => {
  it("fill a store with the owner's threads spread among other owners' and one without an owner", async () => {
    const filled = await fillStore(await memoryFactory(3).fresh(), { threads: 60, owned: 25 });
    try {
      expect(filled.owned).toHaveLength(25);
      expect(new Set(filled.owned).size).toBe(25);
      expect(filled.unowned).toBeDefined();
      const bare = await filled.store.list({ limit: 100 });
      expect(bare.items).toHaveLength(60);
      expect(bare.items.filter((item) => item.owner === undefined).map((item) => item.id)).toEqual([
        filled.unowned,
      ]);
      expect(bare.items.every((item) => item.title?.startsWith("conversation "))).toBe(true);
      const { items } = await newestOfOwner(filled.store);
      expect(items).toHaveLength(20);
      expect(items.every((item) => item.owner === OWNER)).toBe(true);
    } finally {
      await filled.dispose();
    }
  });

  it("refuse to time a page that is not the owner's newest", async () => {
    const filled = await fillStore(await memoryFactory(3).fresh(), { threads: 10, owned: 5 });
    try {
      await expect(checkNewestPage(filled.store, 5)).resolves.toBeUndefined();
      await expect(checkNewestPage(filled.store, 6)).rejects.toThrow("5 threads, not 6");
    } finally {
      await filled.dispose();
    }
  });

  it("say whether a store lists through its index or by scanning every record", async () => {
    const memory = await openStore("memory:");
    const scanning = await scanningStore();
    expect(listingKind(memory)).toBe("index");
    expect(listingKind(scanning)).toBe("scan");
    await scanning.create({ owner: OWNER });
    expect((await newestOfOwner(scanning)).items).toHaveLength(1);
  });

  for (const factory of [memoryFactory(3), fsFactory(3)]) {
    it(`give list, append, ordering and fill figures on ${factory.name}`, async () => {
      const rows = await catalogueRows(factory, SIZES, 200);
      expect(rows.rows.map((row) => row.operation)).toEqual([
        "list 20 newest of one owner",
        "append to one of the owner's threads",
      ]);
      for (const row of rows.rows) {
        expect(row.store).toBe(factory.name);
        expect(row.micros).toHaveLength(SIZES.length);
        expect(row.micros.every((micros) => micros > 0)).toBe(true);
      }
      const kind = listingKind((await factory.fresh()).store);
      expect(rows.rows[0]?.note).toMatch(
        kind === "scan" ? /^scan: before the index; \d+ runs?$/ : /^index; \d+ runs?$/,
      );
      expect(rows.ordering.operation).toBe("append: no owner, then the owner's thread");
      expect(rows.ordering.micros).toHaveLength(2);
      expect(rows.fills.map((fill) => fill.threads)).toEqual([4, 60]);
    });
  }

  it("need threads besides the owner's in the largest store for the ordering row", async () => {
    await expect(catalogueRows(memoryFactory(3), [{ threads: 5, owned: 5 }], 100)).rejects.toThrow(
      "the largest store needs threads besides the owner's",
    );
  });
});
