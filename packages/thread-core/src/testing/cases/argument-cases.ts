import { InvalidOptionError } from "../../errors.js";
import type { Message } from "../../message.js";
import type { ThreadStore } from "../../store/store.js";
import type { ReadOptions, Thread, ThreadSnapshot, ViewOptions } from "../../thread.js";
import type { WorkflowThread } from "../../workflow/workflow-thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const ids = (messages: Message[]) => messages.map((message) => message.id);

/** A thread of a system message and four turns, with a checkpoint after the second. */
async function fiveMessages(store: ThreadStore, id: string) {
  const thread = await store.create({ id });
  await thread.append([
    { id: "sys", role: "system", text: "be brief" },
    { id: "u1", role: "user", text: "one" },
  ]);
  const checkpoint = await thread.checkpoint("two");
  await thread.append([
    { id: "a1", role: "assistant", text: "two" },
    { id: "u2", role: "user", text: "three" },
    { id: "a2", role: "assistant", text: "four" },
  ]);
  return { thread, checkpoint };
}

/** Checks that `call` is refused with an `InvalidOptionError` naming `option` and saying what it expected. */
async function expectRefused(label: string, call: () => Promise<unknown>, option: string): Promise<void> {
  const error = await caught(call());
  expect(InvalidOptionError.isInstance(error), `${label}: ${error}`).toBe(true);
  expect((error as InvalidOptionError).option, label).toBe(option);
  expect(error.message, label).toContain("expected");
}

/** What a refused call must leave as it was. */
async function snapshot(store: ThreadStore, id: string) {
  const thread = await store.get(id);
  return {
    revision: thread.revision,
    messages: ids(await thread.messages()),
    history: await thread.history(),
  };
}

/**
 * Issue 35, item 8: the options of view, messages, fork, rollback, at and update are checked before anything
 * is read or written. A wrong one is an `InvalidOptionError` saying what the option takes, never a view of
 * everything or nothing, a raw `TypeError`, or a point named "undefined:undefined".
 */
export function argumentCases(context: SuiteContext): void {
  conformanceCase(
    context,
    'view refuses budgets and options it cannot use (maxTokens "20", NaN or -1, …) on threads, snapshots and workflows',
    async () => {
      const { thread, checkpoint } = await fiveMessages(context.store, "view-options");
      const past = await thread.at(checkpoint);
      const workflow = (await context.store.create("workflow", {
        id: "view-options-workflow",
      })) as WorkflowThread;
      // Messages to count: a counter's answers are checked as it counts them.
      await workflow.append({ role: "user", text: "hi" });
      const refused: Array<[unknown, string]> = [
        [{ maxTokens: "20" }, "maxTokens"],
        [{ maxTokens: Number.NaN }, "maxTokens"],
        [{ maxTokens: -1 }, "maxTokens"],
        [{ maxMessages: "3" }, "maxMessages"],
        [{ maxMessages: -1 }, "maxMessages"],
        [{ maxMessages: Number.NaN }, "maxMessages"],
        [{ countTokens: 5 }, "countTokens"],
        [{ countTokens: () => Number.NaN, maxTokens: 10 }, "countTokens"],
        [{ countTokens: () => "3", maxTokens: 10 }, "countTokens"],
        [{ keepSystem: "no" }, "keepSystem"],
        ["all", "options"],
      ];
      const targets: Array<[string, Pick<Thread | ThreadSnapshot, "view">]> = [
        ["thread", thread],
        ["snapshot", past],
        ["workflow", workflow],
      ];
      for (const [name, target] of targets) {
        for (const [options, option] of refused) {
          await expectRefused(
            `${name}.view(${String(JSON.stringify(options))})`,
            () => target.view(options as ViewOptions),
            option,
          );
        }
      }
      // What it takes still works at the edges: no budget, a budget of 0, Infinity and fractions.
      expect(ids(await thread.view({ maxMessages: 0 }))).toEqual(["sys"]);
      expect(ids(await thread.view({ maxMessages: 0, keepSystem: false }))).toEqual([]);
      expect(ids(await thread.view({ maxTokens: Number.POSITIVE_INFINITY }))).toHaveLength(5);
      expect(ids(await thread.view({ maxMessages: 2.5, keepSystem: false }))).toEqual(["u2", "a2"]);
      expect(ids(await past.view({ maxMessages: 1, keepSystem: false }))).toEqual(["u1"]);
    },
  );

  conformanceCase(
    context,
    'messages refuses last, after, before and limit it cannot use (last "x", limit -1, …) on threads and snapshots',
    async () => {
      const { thread, checkpoint } = await fiveMessages(context.store, "read-options");
      const past = await thread.at(checkpoint);
      const refused: Array<[unknown, string]> = [
        [{ last: "x" }, "last"],
        [{ last: "2" }, "last"],
        [{ last: -1 }, "last"],
        [{ last: 1.5 }, "last"],
        [{ limit: -1 }, "limit"],
        [{ limit: Number.NaN }, "limit"],
        [{ limit: "10" }, "limit"],
        [{ after: 5 }, "after"],
        [{ after: "" }, "after"],
        [{ before: {} }, "before"],
        [["u1"], "options"],
      ];
      for (const [name, target] of [
        ["thread", thread],
        ["snapshot", past],
      ] as const) {
        for (const [options, option] of refused) {
          await expectRefused(
            `${name}.messages(${JSON.stringify(options)})`,
            () => target.messages(options as ReadOptions),
            option,
          );
        }
      }
      // One message by id, and the pages of a local thread's iterate(pageSize): a page of 0 never moved on.
      await expectRefused("message(5)", () => thread.message?.(5 as never) as Promise<unknown>, "id");
      await expectRefused('message("")', () => thread.message?.("") as Promise<unknown>, "id");
      const paged = thread as Partial<{ iterate(pageSize?: number): AsyncGenerator<Message[]> }>;
      if (paged.iterate) {
        for (const pageSize of [0, -1, Number.NaN, 1.5]) {
          await expectRefused(
            `iterate(${pageSize})`,
            () =>
              (paged.iterate as (size: number) => AsyncGenerator<Message[]>).call(thread, pageSize).next(),
            "pageSize",
          );
        }
      }
      expect(await thread.message?.("u1")).toMatchObject({ id: "u1" });
      expect(ids(await thread.messages({ limit: 0 }))).toEqual([]);
      expect(ids(await thread.messages({ last: 0 }))).toEqual([]);
      expect(ids(await thread.messages({ last: Number.POSITIVE_INFINITY }))).toHaveLength(5);
      expect(ids(await thread.messages({ after: "u1", limit: 2 }))).toEqual(["a1", "u2"]);
      expect(ids(await past.messages({ last: 1 }))).toEqual(["u1"]);
    },
  );

  conformanceCase(
    context,
    'rollback, at and fork refuse a target that is none (undefined, 3, fork("cp-id")), naming what a target is; nothing is written',
    async () => {
      const { thread, checkpoint } = await fiveMessages(context.store, "targets");
      const workflow = (await context.store.create("workflow", { id: "targets-workflow" })) as WorkflowThread;
      const before = await snapshot(context.store, thread.id);
      const workflowBefore = await context.store.getState(workflow.id);
      const listed = async () => (await context.store.list()).items.map((item) => item.id).sort();
      const idsBefore = await listed();
      const calls: Array<[string, () => Promise<unknown>, string]> = [
        ["rollback(undefined)", () => thread.rollback(undefined as never), "target"],
        ["rollback(3)", () => thread.rollback(3 as never), "target"],
        ["rollback({})", () => thread.rollback({} as never), "target"],
        ['rollback("")', () => thread.rollback(""), "target"],
        ["rollback(checkpoint, 'x')", () => thread.rollback(checkpoint, "x" as never), "options"],
        ["at(undefined)", () => thread.at(undefined as never), "target"],
        ["at(3)", () => thread.at(3 as never), "target"],
        ['fork("cp-id")', () => thread.fork(checkpoint.id as never), "options"],
        ["fork({ at: 3 })", () => thread.fork({ id: "targets-fork", at: 3 as never }), "at"],
        ["fork({ at: {} })", () => thread.fork({ id: "targets-fork", at: {} as never }), "at"],
        ["update(undefined)", () => thread.update(undefined as never), "patch"],
        ['update("x")', () => thread.update("x" as never), "patch"],
        ["checkpoint('x', 'y')", () => thread.checkpoint("x", "y" as never), "options"],
        ["workflow.rollback(undefined)", () => workflow.rollback(undefined as never), "target"],
        ["workflow.at(3)", () => workflow.at(3 as never), "target"],
        ['workflow.fork("cp-id")', () => workflow.fork("cp-id" as never), "options"],
        ["workflow.fork({ at: 3 })", () => workflow.fork({ id: "targets-fork", at: 3 as never }), "at"],
        ["workflow.update(undefined)", () => workflow.update(undefined as never), "patch"],
      ];
      for (const [label, call, option] of calls) await expectRefused(label, call, option);
      expect(await snapshot(context.store, thread.id)).toEqual(before);
      expect(await context.store.getState(workflow.id)).toEqual(workflowBefore);
      expect(await listed()).toEqual(idsBefore);
      // The targets it takes still work.
      expect(ids(await (await thread.at(checkpoint.id)).messages())).toEqual(["sys", "u1"]);
      const fork = await thread.fork({ id: "targets-fork", at: checkpoint.id });
      expect(ids(await fork.messages())).toEqual(["sys", "u1"]);
    },
  );
}
