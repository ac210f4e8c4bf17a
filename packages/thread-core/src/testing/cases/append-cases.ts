import { ConcurrencyError, ConflictError, InvalidMessageError } from "../../errors.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

/** SPEC §4: appends are atomic, lose nothing, never duplicate, and honour `ifRevision`. */
export function appendCases(context: SuiteContext): void {
  conformanceCase(context, "append fills ids and timestamps and keeps order", async () => {
    const thread = await context.store.create();
    const [first] = await thread.append({ role: "user", text: "one" });
    const rest = await thread.append([
      { role: "assistant", text: "two" },
      { role: "user", text: "three" },
    ]);
    expect(first?.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(new Date(first?.createdAt as string).toISOString()).toBe(first?.createdAt);
    const texts = (await thread.messages()).map((message) => message.contents[0]);
    expect(texts).toEqual(["one", "two", "three"].map((text) => ({ type: "text", text })));
    expect(rest.map((message) => message.id)).toEqual((await thread.messages({ last: 2 })).map((m) => m.id));
    const ids = [first?.id, ...rest.map((message) => message.id)] as string[];
    expect([...ids].sort()).toEqual(ids);
  });

  conformanceCase(context, "an invalid message in a batch writes nothing", async () => {
    const thread = await context.store.create();
    await thread.append({ role: "user", text: "kept" });
    const error = await caught(
      thread.append([{ role: "user", text: "fine" }, { role: "wizard", text: "bad" } as never]),
    );
    expect(error).toBeInstanceOf(InvalidMessageError);
    expect(error.message).toContain("[1]");
    expect(await thread.messages()).toHaveLength(1);
    const bad = await caught(
      thread.append({ role: "user", contents: [{ type: "function_call", callId: "c" }] } as never),
    );
    expect(bad).toBeInstanceOf(InvalidMessageError);
  });

  conformanceCase(
    context,
    "concurrent appends all land, each once, in one order every reader sees",
    async () => {
      const count = context.options.concurrentAppends ?? 500;
      const thread = await context.store.create();
      const handles = await Promise.all([0, 1, 2, 3].map(() => context.store.get(thread.id)));
      await Promise.all(
        Array.from({ length: count }, (_, index) =>
          (handles[index % handles.length] ?? thread).append({
            id: `m-${index}`,
            role: "user",
            text: `#${index}`,
          }),
        ),
      );
      const seen = await Promise.all(handles.map((handle) => handle.messages()));
      const ids = (seen[0] ?? []).map((message) => message.id);
      expect(ids).toHaveLength(count);
      expect(new Set(ids).size).toBe(count);
      for (const other of seen) expect(other.map((message) => message.id)).toEqual(ids);
    },
    60_000,
  );

  conformanceCase(context, "ifRevision writes only at that revision", async () => {
    const thread = await context.store.create();
    await thread.append({ role: "user", text: "a" });
    const revision = thread.revision as number;
    const other = await context.store.get(thread.id);
    await other.append({ role: "user", text: "b" }, { ifRevision: revision });
    expect(other.revision).toBeGreaterThan(revision);
    const error = await caught(thread.append({ role: "user", text: "c" }, { ifRevision: revision }));
    expect(error).toBeInstanceOf(ConcurrencyError);
    expect((error as ConcurrencyError).actualRevision).toBe(other.revision);
    expect((await thread.messages()).map((message) => message.contents[0])).toEqual([
      { type: "text", text: "a" },
      { type: "text", text: "b" },
    ]);
  });

  conformanceCase(context, "re-sending an equal message is a no-op; a different one conflicts", async () => {
    const thread = await context.store.create();
    const [sent] = await thread.append({ id: "fixed", role: "user", text: "same" });
    const revision = thread.revision;
    const [again] = await thread.append({ id: "fixed", role: "user", text: "same" });
    expect(again).toEqual(sent);
    expect(thread.revision).toBe(revision);
    const retried = await thread.append([
      { id: "fixed", role: "user", text: "same", createdAt: "2020-01-01T00:00:00.000Z" },
      { id: "next", role: "assistant", text: "new" },
    ]);
    expect(retried.map((message) => message.id)).toEqual(["fixed", "next"]);
    const error = await caught(
      thread.append([
        { id: "other", role: "user", text: "x" },
        { id: "fixed", role: "user", text: "changed" },
      ]),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["fixed", "next"]);
  });

  conformanceCase(context, "a stale ifRevision is reported before a batch that repeats an id", async () => {
    const thread = await context.store.create();
    await thread.append({ id: "a", role: "user", text: "a" });
    const twice = [
      { id: "x", role: "user" as const, text: "one" },
      { id: "x", role: "user" as const, text: "two" },
    ];
    expect(await caught(thread.append(twice, { ifRevision: 0 }))).toBeInstanceOf(ConcurrencyError);
    expect(await caught(thread.append(twice, { ifRevision: thread.revision }))).toBeInstanceOf(ConflictError);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a"]);
  });

  conformanceCase(
    context,
    "a retried batch writes only its new ids, once, wherever the others are",
    async () => {
      const thread = await context.store.create();
      await thread.append({ id: "a", role: "user", text: "a" });
      // After a rollback to the end, "a" lives in an ancestor segment and the head starts empty.
      await thread.rollback(await thread.checkpoint());
      const changed = { id: "a", role: "user" as const, text: "changed" };
      expect(await caught(thread.append(changed, { ifRevision: 0 }))).toBeInstanceOf(ConcurrencyError);
      expect(await caught(thread.append(changed))).toBeInstanceOf(ConflictError);
      const [b] = await thread.append({ id: "b", role: "assistant", text: "b" });
      const revision = thread.revision as number;
      const stored = await thread.append([
        { id: "a", role: "user", text: "a" },
        { id: "b", role: "assistant", text: "b" },
        { id: "c", role: "user", text: "c" },
        { id: "c", role: "user", text: "c" },
      ]);
      expect(stored.map((message) => message.id)).toEqual(["a", "b", "c", "c"]);
      expect(stored[1]).toEqual(b);
      expect(stored[3]).toEqual(stored[2]);
      expect(thread.revision).toBe(revision + 1);
      expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
      expect(await thread.append({ id: "c", role: "user", text: "c" })).toEqual([stored[2]]);
      expect(thread.revision).toBe(revision + 1);
    },
  );

  conformanceCase(context, "messages reads by last, after and limit", async () => {
    const thread = await context.store.create();
    await thread.append(
      Array.from({ length: 30 }, (_, index) => ({
        id: `m${index}`,
        role: "user" as const,
        text: `${index}`,
      })),
    );
    const ids = async (options: Parameters<typeof thread.messages>[0]) =>
      (await thread.messages(options)).map((message) => message.id);
    expect(await ids({ last: 3 })).toEqual(["m27", "m28", "m29"]);
    expect(await ids({ after: "m25" })).toEqual(["m26", "m27", "m28", "m29"]);
    expect(await ids({ after: "m5", limit: 2 })).toEqual(["m6", "m7"]);
    expect(await ids({ limit: 2 })).toEqual(["m0", "m1"]);
    expect(await ids({ last: 0 })).toEqual([]);
    expect(await ids({ last: 100 })).toHaveLength(30);
  });
}
