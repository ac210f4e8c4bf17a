import {
  InvalidListOptionsError,
  InvalidThreadIdError,
  ThreadExistsError,
  ThreadNotFoundError,
} from "../../errors.js";
import { createMemoryStore } from "../../memory/memory-thread-type.js";
import { MAX_LIST_LIMIT } from "../../store/store.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const HOSTILE_BUT_VALID_IDS = [
  "../x",
  "../../etc/passwd",
  "/abs/path",
  "C:\\windows",
  "a/b\\c",
  "CON",
  "con",
  "Con",
  ".",
  "..",
  "...",
  "*",
  "{tag}",
  "a{b}c",
  "key:with:colons",
  "%2e%2e",
  " spaced ",
  "ünïcödé-🧵",
  "x".repeat(256),
  "🧵".repeat(256),
];

const INVALID_IDS: unknown[] = [
  "",
  "x".repeat(257),
  "nul\u0000byte",
  "line\nbreak",
  "tab\tid",
  "\u007f",
  42,
  null,
];

/** SPEC §5: create, get, open, save, list, delete, and untrusted ids. */
export function storeCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "create with a taken id fails; get of a missing id is ThreadNotFoundError",
    async () => {
      await context.store.create({ id: "taken" });
      expect(await caught(context.store.create({ id: "taken" }))).toBeInstanceOf(ThreadExistsError);
      expect(await caught(context.store.get("missing"))).toBeInstanceOf(ThreadNotFoundError);
    },
  );

  conformanceCase(context, "invalid ids are rejected with InvalidThreadIdError", async () => {
    for (const id of INVALID_IDS) {
      expect(await caught(context.store.create({ id: id as string }))).toBeInstanceOf(InvalidThreadIdError);
      expect(await caught(context.store.get(id as string))).toBeInstanceOf(InvalidThreadIdError);
      expect(await caught(context.store.delete(id as string))).toBeInstanceOf(InvalidThreadIdError);
    }
  });

  conformanceCase(
    context,
    "hostile but valid ids are stored safely and never collide",
    async () => {
      for (const id of HOSTILE_BUT_VALID_IDS) {
        const thread = await context.store.create({ id });
        await thread.append({ role: "user", text: `I am ${id}` });
      }
      for (const id of HOSTILE_BUT_VALID_IDS) {
        const thread = await context.store.get(id);
        expect(thread.id).toBe(id);
        expect((await thread.messages()).map((message) => message.contents[0])).toEqual([
          { type: "text", text: `I am ${id}` },
        ]);
      }
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await context.store.list({ cursor, limit: 7 });
        listed.push(...page.items.map((item) => item.id));
        cursor = page.cursor;
      } while (cursor);
      expect(listed.sort()).toEqual([...HOSTILE_BUT_VALID_IDS].sort());
    },
    60_000,
  );

  conformanceCase(context, "list pages with a cursor, in id order, with a prefix filter", async () => {
    for (let index = 0; index < 25; index++)
      await context.store.create({ id: `t-${String(index).padStart(2, "0")}` });
    await context.store.create({ id: "other" });
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await context.store.list({ prefix: "t-", cursor, limit: 10 });
      pages.push(page.items.map((item) => item.id));
      cursor = page.cursor;
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(
      Array.from({ length: 25 }, (_, index) => `t-${String(index).padStart(2, "0")}`),
    );
    const first = await context.store.list({ limit: 1 });
    expect(first.items[0]).toMatchObject({ id: "other", type: context.store.nativeType });
  });

  conformanceCase(
    context,
    "list refuses a cursor it did not make or a limit that is no positive integer",
    async () => {
      await context.store.create({ id: "listed" });
      for (const cursor of ["!!!", "not a cursor!", "bGlzdGVk=", 42]) {
        const error = await caught(context.store.list({ cursor: cursor as string }));
        expect(InvalidListOptionsError.isInstance(error), `cursor ${String(cursor)}: ${error}`).toBe(true);
        expect((error as InvalidListOptionsError).option).toBe("cursor");
      }
      const tooLarge = [MAX_LIST_LIMIT + 1, 1e300, Number.MAX_SAFE_INTEGER + 2];
      for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10", ...tooLarge]) {
        const error = await caught(context.store.list({ limit: limit as number }));
        expect(InvalidListOptionsError.isInstance(error), `limit ${String(limit)}: ${error}`).toBe(true);
        expect(error.message).toContain("positive integer");
      }
      const page = await context.store.list({ limit: 1 });
      expect(page.items.map((item) => item.id)).toEqual(["listed"]);
      const largest = await context.store.list({ limit: MAX_LIST_LIMIT });
      expect(largest.items.map((item) => item.id)).toEqual(["listed"]);
    },
  );

  conformanceCase(context, "delete removes a thread; deleting again returns false", async () => {
    const thread = await context.store.create({ id: "doomed" });
    await thread.append({ role: "user", text: "bye" });
    expect(await context.store.delete("doomed")).toBe(true);
    expect(await caught(context.store.get("doomed"))).toBeInstanceOf(ThreadNotFoundError);
    expect(await context.store.delete("doomed")).toBe(false);
    expect((await context.store.list()).items).toEqual([]);
    const reborn = await context.store.create({ id: "doomed" });
    expect(await reborn.messages()).toEqual([]);
  });

  conformanceCase(context, "save keeps a thread of another type and get binds it again", async () => {
    const elsewhere = createMemoryStore({ registry: context.store.registry });
    const visitor = await elsewhere.create({ id: "visitor", metadata: { from: "memory" } });
    await visitor.append({ role: "user", text: "carried" });
    await context.store.save(visitor);
    const back = await context.store.get("visitor");
    expect(back.type).toBe("memory");
    expect(back.metadata).toEqual({ from: "memory" });
    expect((await back.messages()).map((message) => message.contents[0])).toEqual([
      { type: "text", text: "carried" },
    ]);
    expect((await context.store.list()).items.map((item) => [item.id, item.type])).toEqual([
      ["visitor", "memory"],
    ]);
  });

  conformanceCase(context, "export and import carry a thread with its whole history", async () => {
    const thread = await context.store.create({ id: "source", metadata: { k: 1 } });
    await thread.append([
      { id: "a", role: "user", text: "a" },
      { id: "b", role: "assistant", text: "b" },
    ]);
    const checkpoint = await thread.checkpoint("two");
    await thread.append({ id: "c", role: "user", text: "c" });
    await thread.rollback(checkpoint);
    await thread.append({ id: "d", role: "user", text: "d" });
    const exported = await context.store.export("source");
    expect(exported.$type).toBe("memory");
    const copy = await context.store.import(JSON.parse(JSON.stringify(exported)), { id: "copy" });
    expect((await copy.messages()).map((message) => message.id)).toEqual(["a", "b", "d"]);
    expect(copy.metadata).toEqual({ k: 1 });
    const history = await copy.history();
    expect(history.map((event) => event.kind)).toEqual(["checkpoint", "rollback"]);
    const rollback = history[1] as Extract<(typeof history)[number], { kind: "rollback" }>;
    const abandoned = await copy.at(rollback.from);
    expect((await abandoned.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    await copy.rollback(checkpoint.id);
    expect((await copy.messages()).map((message) => message.id)).toEqual(["a", "b"]);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b", "d"]);
    const elsewhere = createMemoryStore({ registry: context.store.registry });
    const moved = await elsewhere.import(exported);
    expect((await moved.messages()).map((message) => message.id)).toEqual(["a", "b", "d"]);
  });
}
