import {
  ConcurrencyError,
  ConflictError,
  InvalidOperationIdError,
  PointNotFoundError,
  UnsupportedOperationError,
} from "../../errors.js";
import { OPERATIONS_KEPT } from "../../local/log-driver.js";
import type { Message } from "../../message.js";
import type { Thread } from "../../thread.js";
import type { WorkflowThread } from "../../workflow/workflow-thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const ids = async (thread: Pick<Thread, "messages">) =>
  (await thread.messages()).map((message: Message) => message.id);
const say = (id: string, text = id) => ({ id, role: "user" as const, text });
const rollbacks = async (thread: Thread) =>
  (await thread.history()).filter((event) => event.kind === "rollback").length;
/** `rollback` as local threads type it: the appended messages, as stored. */
const rollback = (thread: Thread, ...args: Parameters<Thread["rollback"]>) =>
  thread.rollback(...args) as Promise<Message[]>;
const messageOf = (thread: Thread, id: string) => (thread.message as (id: string) => Promise<Message>)(id);

/** History edits: rollback with append, "start", message(id), paging backwards, operation ids. */
export function editCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "rollback with append is one change; a retry with the same messages is a no-op; the abandoned part stays",
    async () => {
      const thread = await context.store.create();
      await thread.append([say("a"), say("b"), say("c")]);
      const before = thread.revision as number;
      const appended = await rollback(thread, "a", { append: [say("x"), say("y")] });
      expect(appended.map((message) => message.id)).toEqual(["x", "y"]);
      expect(await ids(thread)).toEqual(["a", "x", "y"]);
      expect(thread.revision).toBe(before + 1);
      const [event] = (await thread.history()).filter((item) => item.kind === "rollback");
      expect(event?.kind === "rollback" && (await thread.at(event.from).then((past) => ids(past)))).toEqual([
        "a",
        "b",
        "c",
      ]);

      // A retry, from this handle or another process's, writes nothing and returns the messages as stored.
      const again = await rollback(thread, "a", { append: [say("x"), say("y")] });
      expect(again).toEqual(appended);
      const other = await context.store.get(thread.id);
      await rollback(other, "a", { append: [say("x"), say("y")] });
      await thread.refresh();
      expect(thread.revision).toBe(before + 1);
      expect(await rollbacks(thread)).toBe(1);

      // The same ids with other content is another edit: applied, the first one kept in history.
      await rollback(thread, "a", { append: [say("x", "edited"), say("y")] });
      expect((await thread.messages()).map((message) => message.contents)).toEqual([
        [{ type: "text", text: "a" }],
        [{ type: "text", text: "edited" }],
        [{ type: "text", text: "y" }],
      ]);
      expect(await rollbacks(thread)).toBe(2);

      // An id the kept prefix holds is skipped when equal, a ConflictError when not (nothing written).
      await rollback(thread, "a", { append: [say("a"), say("z")] });
      expect(await ids(thread)).toEqual(["a", "z"]);
      const revision = thread.revision;
      expect(await caught(rollback(thread, "a", { append: [say("a", "other"), say("w")] }))).toBeInstanceOf(
        ConflictError,
      );
      await thread.refresh();
      expect(thread.revision).toBe(revision);
      expect(await ids(thread)).toEqual(["a", "z"]);

      // A checkpoint taken just after a rollback (at the start of an empty segment) is recognised on retry too.
      await rollback(thread, "a");
      const checkpoint = await thread.checkpoint();
      const count = await rollbacks(thread);
      await rollback(thread, checkpoint, { append: say("k") });
      await rollback(thread, checkpoint, { append: say("k") });
      expect(await ids(thread)).toEqual(["a", "k"]);
      expect(await rollbacks(thread)).toBe(count + 1);
    },
  );

  conformanceCase(context, "a stale ifRevision refuses a rollback with append, writing nothing", async () => {
    const thread = await context.store.create();
    await thread.append([say("a"), say("b")]);
    const stale = thread.revision as number;
    await thread.append(say("c"));
    const error = await caught(rollback(thread, "a", { append: say("x"), ifRevision: stale }));
    expect(ConcurrencyError.isInstance(error)).toBe(true);
    expect(await ids(thread)).toEqual(["a", "b", "c"]);
    expect(await rollbacks(thread)).toBe(0);
  });

  conformanceCase(context, '"start" is a target of rollback, fork and at', async () => {
    const thread = await context.store.create();
    const empty = await thread.fork({ at: "start" });
    expect(await ids(empty)).toEqual([]);
    await thread.append([say("a"), say("b")]);
    expect(await ids(await thread.at("start"))).toEqual([]);
    const fork = await thread.fork({ at: "start" });
    expect(await ids(fork)).toEqual([]);
    await fork.append(say("f"));
    expect(await ids(fork)).toEqual(["f"]);
    await rollback(thread, "start");
    expect(await ids(thread)).toEqual([]);
    await thread.append(say("c"));
    expect(await rollback(thread, "start", { append: [say("n")] })).toHaveLength(1);
    expect(await ids(thread)).toEqual(["n"]);
    const history = await thread.history();
    const last = history[history.length - 1];
    expect(last?.kind === "rollback" && (await ids(await thread.at(last.from)))).toEqual(["c"]);
  });

  conformanceCase(
    context,
    "message(id) finds a message across forks and rollbacks, or undefined",
    async () => {
      const thread = await context.store.create();
      expect(await messageOf(thread, "a")).toBeUndefined();
      await thread.append(Array.from({ length: 30 }, (_, index) => say(`m${index}`)));
      expect(await messageOf(thread, "m17")).toMatchObject({ id: "m17", contents: [{ text: "m17" }] });
      const fork = await thread.fork({ at: "m9" });
      await fork.append(say("own"));
      expect((await messageOf(fork, "m3"))?.id).toBe("m3");
      expect(await messageOf(fork, "m17")).toBeUndefined();
      expect((await messageOf(fork, "own"))?.id).toBe("own");
      await rollback(thread, "m4", { append: say("late") });
      expect(await messageOf(thread, "m17")).toBeUndefined();
      expect((await messageOf(thread, "late"))?.id).toBe("late");
      // Another handle sees what this one wrote.
      expect((await messageOf(await context.store.get(thread.id), "late"))?.id).toBe("late");
    },
  );

  conformanceCase(context, "messages({ before, limit }) pages backwards", async () => {
    const thread = await context.store.create();
    await thread.append(Array.from({ length: 10 }, (_, index) => say(`m${index}`)));
    const page = async (options: Parameters<Thread["messages"]>[0]) =>
      (await thread.messages(options)).map((message) => message.id);
    expect(await page({ before: "m5", limit: 2 })).toEqual(["m3", "m4"]);
    expect(await page({ before: "m1", limit: 5 })).toEqual(["m0"]);
    expect(await page({ before: "m0", limit: 5 })).toEqual([]);
    expect(await page({ before: "m3" })).toEqual(["m0", "m1", "m2"]);
    expect(await page({ after: "m2", before: "m6" })).toEqual(["m3", "m4", "m5"]);
    expect(await page({ after: "m2", before: "m8", limit: 2 })).toEqual(["m3", "m4"]);
    expect(await page({ before: "m8", last: 2 })).toEqual(["m6", "m7"]);
    // Walking back page by page visits every message once.
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const chunk = await page(cursor === undefined ? { last: 3 } : { before: cursor, limit: 3 });
      if (chunk.length === 0) break;
      seen.unshift(...chunk);
      cursor = chunk[0];
    }
    expect(seen).toEqual(await ids(thread));
    expect(await caught(thread.messages({ before: "nope", limit: 1 }))).toBeInstanceOf(PointNotFoundError);
  });

  conformanceCase(
    context,
    "operationId: an applied operation is a no-op returning its first result, even when it appended nothing",
    async () => {
      const thread = await context.store.create();
      const first = await thread.append({ role: "user", text: "no id" }, { operationId: "op-1" });
      const revision = thread.revision as number;
      // A retry (messages without ids get new ones each time: only the operation id recognises it).
      const again = await thread.append({ role: "user", text: "no id" }, { operationId: "op-1" });
      expect(again).toEqual(first);
      expect(await thread.messages()).toEqual(first);
      expect(thread.revision).toBe(revision);

      // An operation whose messages were all there already appended nothing, and is still recorded.
      const held = await thread.append(first, { operationId: "op-2" });
      expect(held).toEqual(first);
      // Rolled back past both: their retries still write nothing and return their first results.
      await thread.rollback("start", { operationId: "op-3" });
      expect(await thread.append({ role: "user", text: "no id" }, { operationId: "op-1" })).toEqual(first);
      expect(await thread.append(first, { operationId: "op-2" })).toEqual(first);
      expect(await ids(thread)).toEqual([]);

      // Rollbacks too, from another handle: no second rollback.
      const other = await context.store.get(thread.id);
      await other.rollback("start", { operationId: "op-3" });
      expect(await rollbacks(thread)).toBe(1);
      const edited = await rollback(thread, "start", { append: say("e"), operationId: "op-4" });
      await thread.append(say("after"));
      expect(await rollback(other, "start", { append: say("e", "changed"), operationId: "op-4" })).toEqual(
        edited,
      );
      expect(await ids(thread)).toEqual(["e", "after"]);

      // Concurrent tries of one operation apply it once.
      await Promise.all(
        Array.from({ length: 8 }, async () =>
          (await context.store.get(thread.id)).append(
            { role: "user", text: "once" },
            { operationId: "op-5" },
          ),
        ),
      );
      expect(
        (await thread.messages()).filter((message) => message.contents[0]?.text === "once"),
      ).toHaveLength(1);
      expect(await caught(thread.append(say("q"), { operationId: "" }))).toBeInstanceOf(
        InvalidOperationIdError,
      );
      // Updates are not kept by operation id: refused, not run unguarded.
      const update = thread.update({ metadata: { a: 1 } }, { operationId: "op-6" } as never);
      expect(UnsupportedOperationError.isInstance(await caught(update))).toBe(true);
    },
  );

  conformanceCase(
    context,
    "operation ids are kept with the thread: the last OPERATIONS_KEPT of them",
    async () => {
      const thread = await context.store.create();
      await thread.append({ role: "user", text: "0" }, { operationId: "op-0" });
      for (let index = 1; index <= OPERATIONS_KEPT; index++) {
        await thread.append(say(`m${index}`), { operationId: `op-${index}` });
      }
      // The newest OPERATIONS_KEPT are remembered, through a fresh handle and an export and import.
      const copy = await context.store.import(await context.store.export(thread.id), { id: "copy" });
      for (const handle of [await context.store.get(thread.id), copy]) {
        expect(await handle.append(say("other"), { operationId: "op-1" })).toEqual([
          expect.objectContaining({ id: "m1" }),
        ]);
      }
      expect((await thread.messages()).length).toBe(OPERATIONS_KEPT + 1);
      // The oldest was forgotten: applied again.
      await thread.append({ role: "user", text: "0" }, { operationId: "op-0" });
      expect((await thread.messages()).length).toBe(OPERATIONS_KEPT + 2);
    },
  );

  conformanceCase(
    context,
    "a workflow reads its main sub-thread's messages by id, and refuses rollback with append or operationId",
    async () => {
      const workflow = (await context.store.create("workflow", { threads: ["main"] })) as WorkflowThread;
      await workflow.append([say("a"), say("b")], { operationId: "w-1" });
      expect(await workflow.append(say("other"), { operationId: "w-1" })).toHaveLength(2);
      expect((await workflow.message("b"))?.id).toBe("b");
      const checkpoint = await workflow.checkpoint();
      for (const options of [{ append: say("x") }, { operationId: "w-2" }]) {
        const error = await caught(workflow.rollback(checkpoint, options));
        expect(UnsupportedOperationError.isInstance(error)).toBe(true);
      }
      expect(await ids(workflow)).toEqual(["a", "b"]);
    },
  );

  conformanceCase(
    context,
    'a workflow pages its main sub-thread backwards; "start" forks and reads main there, and is no workflow rollback target',
    async () => {
      const workflow = (await context.store.create("workflow", {
        threads: ["main", "side"],
      })) as WorkflowThread;
      await workflow.append([say("a"), say("b"), say("c")]);
      await workflow.thread("side").append(say("s"));
      expect((await workflow.messages({ before: "c", limit: 1 })).map((message) => message.id)).toEqual([
        "b",
      ]);
      expect(PointNotFoundError.isInstance(await caught(workflow.messages({ before: "nope" })))).toBe(true);
      expect(await ids(await workflow.at("start"))).toEqual([]);
      // As for a message id of main: main forked at its start, the other sub-threads as they are.
      const fork = await workflow.fork({ at: "start" });
      expect(await ids(fork)).toEqual([]);
      expect(await ids(fork.thread("side"))).toEqual(["s"]);
      // A workflow rolls back to its own checkpoints only; "start" is refused, nothing changed.
      const revision = workflow.revision;
      const error = await caught(workflow.rollback("start"));
      expect(UnsupportedOperationError.isInstance(error)).toBe(true);
      expect(workflow.revision).toBe(revision);
      expect(await ids(workflow)).toEqual(["a", "b", "c"]);
    },
  );
}
