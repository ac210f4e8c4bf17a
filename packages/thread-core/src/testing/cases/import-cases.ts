import { ConflictError } from "../../errors.js";
import type { HistoryEvent } from "../../thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const AT = "2026-01-01T00:00:00.000Z";

/**
 * A memory log of `count` segments, each continuing the one before after its single message: the shape
 * many rollbacks or re-imports leave. `newestFirst` lists the segments end first, so ordering them bases
 * first has to walk the whole chain from its first entry.
 */
export function chainedLog(count: number, id: string, options: { newestFirst?: boolean } = {}) {
  const segments = Array.from({ length: count }, (_, index) => ({
    id: `${id}-s${index}`,
    base: index === 0 ? null : { segment: `${id}-s${index - 1}`, offset: 1 },
    start: index,
    createdAt: AT,
    messages: [
      { id: `m${index}`, role: "user", createdAt: AT, contents: [{ type: "text", text: `#${index}` }] },
    ],
  }));
  if (options.newestFirst) segments.reverse();
  return {
    $type: "memory",
    $v: 1,
    id,
    createdAt: AT,
    metadata: {},
    context: {},
    revision: count,
    end: { segment: `${id}-s${count - 1}`, offset: 1 },
    segments,
    events: [],
  };
}

/** Issue 18, points 5 and 6: import keeps no silently changed message, and long chains of segments import whole. */
export function importCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "re-importing segments the store holds, with a message's content changed, is a ConflictError; nothing changes",
    async () => {
      const thread = await context.store.create({ id: "original" });
      await thread.append([
        { id: "a", role: "user", text: "first" },
        { id: "b", role: "assistant", text: "second" },
      ]);
      const checkpoint = await thread.checkpoint();
      await thread.append({ id: "c", role: "user", text: "third" });
      await thread.rollback(checkpoint);
      const exported = JSON.parse(JSON.stringify(await context.store.export("original")));
      // An equal re-import shares the stored segments.
      const equal = await context.store.import(exported, { id: "equal" });
      expect((await equal.messages()).map((message) => message.id)).toEqual(["a", "b"]);
      for (const changed of ["a", "c"]) {
        const altered = JSON.parse(JSON.stringify(exported));
        for (const segment of altered.segments)
          for (const message of segment.messages)
            if (message.id === changed) message.contents = [{ type: "text", text: "rewritten" }];
        const error = await caught(context.store.import(altered, { id: `altered-${changed}` }));
        expect(ConflictError.isInstance(error), `${changed}: ${error}`).toBe(true);
        expect((error as ConflictError).messageId).toBe(changed);
      }
      // Only createdAt differs: a retry may stamp it anew, so that is the same message, as on append.
      const restamped = JSON.parse(JSON.stringify(exported));
      for (const segment of restamped.segments)
        for (const message of segment.messages) message.createdAt = "2030-01-01T00:00:00.000Z";
      await context.store.import(restamped, { id: "restamped" });
      expect((await context.store.list()).items.map((item) => item.id)).toEqual([
        "equal",
        "original",
        "restamped",
      ]);
      const kept = await context.store.get("original");
      expect((await kept.messages()).map((message) => message.contents[0])).toEqual([
        { type: "text", text: "first" },
        { type: "text", text: "second" },
      ]);
      const abandoned = (await kept.history()).find((event) => event.kind === "rollback");
      const before = await kept.at((abandoned as Extract<HistoryEvent, { kind: "rollback" }>).from);
      expect((await before.messages()).map((message) => message.contents[0])).toEqual(
        ["first", "second", "third"].map((text) => ({ type: "text", text })),
      );
    },
  );

  conformanceCase(
    context,
    "a memory log of 12,000 chained segments opens, listed newest first or oldest first",
    async () => {
      for (const newestFirst of [true, false]) {
        const opened = await context.store.open(chainedLog(12_000, `long-${newestFirst}`, { newestFirst }));
        const last = await opened.messages({ last: 2 });
        expect(last.map((message) => message.id)).toEqual(["m11998", "m11999"]);
      }
    },
    120_000,
  );

  conformanceCase(
    context,
    "an export of 1,000 chained segments imports whole, and again under another id",
    async () => {
      const imported = await context.store.import(chainedLog(1_000, "chain", { newestFirst: true }));
      const messages = await imported.messages();
      expect(messages.map((message) => message.id)).toEqual(
        Array.from({ length: 1_000 }, (_, index) => `m${index}`),
      );
      const exported = JSON.parse(JSON.stringify(await context.store.export("chain")));
      expect(exported.segments).toHaveLength(1_000);
      const again = await context.store.import(exported, { id: "chain-again" });
      expect(await again.messages()).toEqual(messages);
      await again.append({ id: "after", role: "user", text: "more" });
      expect((await again.messages({ last: 1 }))[0]?.id).toBe("after");
      expect(await (await context.store.get("chain")).messages()).toEqual(messages);
    },
    300_000,
  );
  conformanceCase(
    context,
    "export takes a thread whose history points at an empty head: after two rollbacks, and after an import and a checkpoint",
    async () => {
      const thread = await context.store.create({ id: "rolled" });
      await thread.append({ id: "one", role: "user", text: "one" });
      const checkpoint = await thread.checkpoint("one");
      await thread.append({ id: "two", role: "user", text: "two" });
      await thread.rollback(checkpoint);
      await thread.rollback(checkpoint);
      const exported = JSON.parse(JSON.stringify(await context.store.export("rolled")));
      const copy = await context.store.import(exported, { id: "rolled-copy" });
      expect((await copy.messages()).map((message) => message.id)).toEqual(["one"]);
      expect(await copy.history()).toHaveLength((await thread.history()).length);
      await copy.checkpoint("after import");
      const again = JSON.parse(JSON.stringify(await context.store.export("rolled-copy")));
      const third = await context.store.import(again, { id: "rolled-third" });
      expect((await third.messages()).map((message) => message.id)).toEqual(["one"]);
      expect((await third.history()).map((event) => event.kind)).toEqual(
        (await copy.history()).map((event) => event.kind),
      );
    },
  );
}
