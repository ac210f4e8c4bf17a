import { InvalidListOptionsError, SkeinError } from "../../errors.js";
import type { ListOptions, ThreadStore } from "../../store/store.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";
import { nextMillisecond } from "./catalogue-cases.js";

/**
 * Walks a listing page by page; before each next page `between` runs (changes made while a client pages),
 * also concurrently with the page read.
 */
async function walk(
  store: ThreadStore,
  options: ListOptions,
  between: (page: number) => Promise<void>,
): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    const [result] = await Promise.all([
      store.list({ ...options, cursor }),
      page > 0 ? between(page) : undefined,
    ]);
    seen.push(...result.items.map((item) => item.id));
    if (!result.cursor) return seen;
    cursor = result.cursor;
    await between(page);
  }
}

/** Issue 37: keyset cursors under concurrent changes, and bad input to `list` and `count`. */
export function catalogueCursorCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "a thread that changes while a client pages appears at most once in that walk",
    async () => {
      const store = context.store;
      const ids = Array.from({ length: 12 }, (_, index) => `w-${String(index).padStart(2, "0")}`);
      for (const id of ids) {
        await store.create({ id, owner: "u" });
        await nextMillisecond();
      }
      for (const direction of ["desc", "asc"] as const) {
        for (const order of ["updated", "created", "id"] as const) {
          const touched = new Set<string>();
          let counter = 0;
          const seen = await walk(store, { owner: "u", order, direction, limit: 3 }, async (page) => {
            // Seen and unseen threads alike move to the newest end, some while the next page is read.
            for (const id of [ids[page % ids.length], ids[(page * 7 + 3) % ids.length]] as string[]) {
              touched.add(id);
              await (await store.get(id)).append({ role: "user", text: `change ${counter++}` });
            }
          });
          expect(new Set(seen).size, `${order} ${direction}: ${seen.join(",")}`).toBe(seen.length);
          // Every thread no one touched during the walk is in it.
          for (const id of ids) if (!touched.has(id)) expect(seen, `${order} ${direction}`).toContain(id);
          if (order !== "updated") expect(seen.sort()).toEqual(ids);
        }
      }
    },
    60_000,
  );

  conformanceCase(context, "forks and imports made during a walk never break it", async () => {
    const store = context.store;
    const parent = await store.create({ id: "f-0", owner: "u", title: "Parent" });
    await parent.append({ id: "m1", role: "user", text: "hi" });
    for (let index = 1; index < 6; index++) await store.create({ id: `f-${index}`, owner: "u" });
    const exported = await store.export("f-0");
    let made = 0;
    const seen = await walk(store, { owner: "u", order: "updated", limit: 2 }, async () => {
      made++;
      await parent.fork({ id: `fork-${made}` });
      await store.import(exported, { id: `imp-${made}` });
    });
    expect(new Set(seen).size).toBe(seen.length);
    const all = await store.list({ owner: "u", order: "created", direction: "asc", limit: 1000 });
    expect(all.items.filter((item) => item.id.startsWith("fork-")).map((item) => item.title)).toEqual(
      Array.from({ length: made }, () => "Parent"),
    );
    expect(all.items.find((item) => item.id === "fork-1")?.messageCount).toBe(1);
  });

  conformanceCase(context, "bad list and count input is a typed error, never a page", async () => {
    const store = context.store;
    for (let index = 0; index < 3; index++) await store.create({ id: `b-${index}`, owner: "u" });
    const first = await store.list({ owner: "u", order: "updated", limit: 1 });
    const cursor = first.cursor as string;
    expect(typeof cursor).toBe("string");
    const decoded = Buffer.from(cursor, "base64url").toString("utf8");
    const forged = [
      Buffer.from(decoded.replace("b-", "c-"), "utf8").toString("base64url"),
      Buffer.from('[1,"x"]', "utf8").toString("base64url"),
      `${cursor}x`,
      "not a cursor",
      "",
    ];
    for (const bad of forged) {
      const error = await caught(store.list({ owner: "u", order: "updated", limit: 1, cursor: bad }));
      expect(error, bad).toBeInstanceOf(InvalidListOptionsError);
    }
    // A cursor of one listing given with other options is refused, not read as a place in this one.
    for (const other of [
      { owner: "v", order: "updated" },
      { owner: "u", order: "created" },
      { owner: "u", order: "updated", direction: "asc" },
      { owner: "u", order: "updated", where: { a: 1 } },
    ] as ListOptions[]) {
      const error = await caught(store.list({ ...other, cursor }));
      expect(error).toBeInstanceOf(InvalidListOptionsError);
      expect((error as InvalidListOptionsError).option).toBe("cursor");
    }
    const bad: Array<[ListOptions, string]> = [
      [{ limit: 0 }, "limit"],
      [{ limit: 1001 }, "limit"],
      [{ owner: "x".repeat(257) }, "owner"],
      [{ owner: "" }, "owner"],
      [{ owner: "line\nbreak" }, "owner"],
      [{ owner: 7 as unknown as string }, "owner"],
      [{ where: { at: new Date() } as Record<string, unknown> }, "where"],
      [{ where: { n: Number.NaN } }, "where"],
      [{ where: { f: () => 1 } }, "where"],
      [{ where: "agent=planner" as unknown as Record<string, unknown> }, "where"],
      [{ order: "newest" as "updated" }, "order"],
      [{ direction: "up" as "asc" }, "direction"],
    ];
    for (const [options, option] of bad) {
      const error = await caught(store.list(options));
      expect(error, option).toBeInstanceOf(InvalidListOptionsError);
      expect((error as InvalidListOptionsError).option).toBe(option);
      if (option === "owner" || option === "where") {
        const counted = await caught(store.count({ owner: options.owner, where: options.where }));
        expect(counted, option).toBeInstanceOf(InvalidListOptionsError);
      }
    }
    // Bad owners and titles are refused where they are set, and nothing is written.
    for (const settings of [
      { owner: "x".repeat(257) },
      { owner: "" },
      { title: 5 },
      { title: "t".repeat(1001) },
    ]) {
      const error = await caught(store.create({ id: "refused", ...(settings as object) }));
      expect(SkeinError.isInstance(error)).toBe(true);
    }
    const thread = await store.get("b-0");
    const error = await caught(thread.update({ owner: "bad\u0000owner" }));
    expect(SkeinError.isInstance(error)).toBe(true);
    expect(await store.list({ owner: "u", limit: 10 })).toMatchObject({
      items: [{ id: "b-0" }, { id: "b-1" }, { id: "b-2" }],
    });
    expect((await store.list({ limit: 10 })).items).toHaveLength(3);
  });
}
