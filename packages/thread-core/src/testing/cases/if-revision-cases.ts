import { ConcurrencyError, InvalidOptionError } from "../../errors.js";
import type { LogDriver } from "../../local/log-driver.js";
import type { ThreadStore } from "../../store/store.js";
import type { WorkflowThread } from "../../workflow/workflow-thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const say = (id: string) => ({ id, role: "user" as const, text: id });

/** Whether the store's driver checks `ifRevision` in the same step as a delete (`LogDriver.fencedDelete`). */
const fencedDelete = (store: ThreadStore) =>
  (store as Partial<{ driver: LogDriver }>).driver?.fencedDelete === true;

/** `ifRevision` values no revision can ever be: each is bad input, never a conflict to retry. */
const NOT_REVISIONS: unknown[] = ["abc", "", " 1", "1.0", "-1", -1, 1.5, Number.NaN, null, {}, true];

const listed = async (store: ThreadStore) => (await store.list()).items.map((item) => item.id).sort();

/** What a refused write must leave as it was. */
async function snapshot(store: ThreadStore, id: string) {
  const thread = await store.get(id);
  return {
    revision: thread.revision,
    metadata: thread.metadata,
    messages: (await thread.messages()).map((message) => message.id),
    history: await thread.history(),
  };
}

/**
 * Issue 35, item 7: `ifRevision` as it arrives from a header or a form. A string of digits is that revision;
 * anything that is no revision (`"abc"`, -1, 1.5) is an `InvalidOptionError`, never a `ConcurrencyError`
 * that no retry can clear. The same at every door that takes it.
 */
export function ifRevisionCases(context: SuiteContext): void {
  conformanceCase(
    context,
    'ifRevision given as a string of digits ("1") is read as that revision at every door',
    async () => {
      const store = context.store;
      const thread = await store.create({ id: "revision-text" });
      const text = () => String(thread.revision);
      await thread.append(say("a"), { ifRevision: text() as never });
      await thread.update({ metadata: { step: 1 } }, { ifRevision: text() as never });
      const checkpoint = await thread.checkpoint("here", { ifRevision: text() as never });
      await thread.append(say("b"), { ifRevision: text() as never, operationId: "op-1" });
      await thread.rollback(checkpoint, { ifRevision: text() as never });
      const fork = await thread.fork({ id: "revision-text-fork", ifRevision: text() as never });
      expect(thread.revision).toBe(5);
      // A string of a revision the thread has moved past is a ConcurrencyError naming it as a number.
      const stale = await caught(thread.append(say("late"), { ifRevision: "1" as never }));
      expect(ConcurrencyError.isInstance(stale), String(stale)).toBe(true);
      expect((stale as ConcurrencyError).expectedRevision).toBe(1);
      expect((stale as ConcurrencyError).actualRevision).toBe(5);
      if (fencedDelete(store)) {
        await fork.delete({ ifRevision: String(fork.revision) as never });
        expect(await store.delete(thread.id, { ifRevision: text() as never })).toBe(true);
      }
      // A workflow saved as a state document: store.save and the workflow's own doors.
      const workflow = (await store.create("workflow", { id: "revision-text-workflow" })) as WorkflowThread;
      await workflow.update({ metadata: { n: 1 } }, { ifRevision: String(workflow.revision) as never });
      await workflow.checkpoint("w", { ifRevision: String(workflow.revision) as never });
      const saved = await store.save(workflow.toJSON(), { ifRevision: String(workflow.revision) as never });
      expect(saved.revision).toBe((workflow.revision as number) + 1);
    },
  );

  conformanceCase(
    context,
    'ifRevision that is no revision ("abc", -1, 1.5, NaN, null) is an InvalidOptionError at every door; nothing is written',
    async () => {
      const store = context.store;
      const thread = await store.create({ id: "revision-bad", metadata: { kept: true } });
      await thread.append(say("a"));
      const checkpoint = await thread.checkpoint("here");
      const workflow = (await store.create("workflow", { id: "revision-bad-workflow" })) as WorkflowThread;
      const workflowCheckpoint = await workflow.checkpoint("w");
      const before = await snapshot(store, thread.id);
      const workflowBefore = await store.getState(workflow.id);
      const idsBefore = await listed(store);
      for (const value of NOT_REVISIONS) {
        const ifRevision = value as number;
        const doors: Array<[string, () => Promise<unknown>]> = [
          ["append", () => thread.append(say("x"), { ifRevision })],
          ["append with operationId", () => thread.append(say("x"), { ifRevision, operationId: "op" })],
          ["update", () => thread.update({ metadata: { changed: true } }, { ifRevision })],
          ["checkpoint", () => thread.checkpoint("x", { ifRevision })],
          ["rollback", () => thread.rollback(checkpoint, { ifRevision })],
          ["fork", () => thread.fork({ id: "revision-bad-fork", ifRevision })],
          ["thread.delete", () => thread.delete({ ifRevision })],
          ["store.delete", () => store.delete(thread.id, { ifRevision })],
          ["store.save", () => store.save(workflow.toJSON(), { ifRevision })],
          ["workflow.append", () => workflow.append(say("x"), { ifRevision })],
          ["workflow.rollback", () => workflow.rollback(workflowCheckpoint, { ifRevision })],
          ["workflow.update", () => workflow.update({ metadata: { changed: true } }, { ifRevision })],
          ["workflow.checkpoint", () => workflow.checkpoint("x", { ifRevision })],
          ["workflow.fork", () => workflow.fork({ id: "revision-bad-fork", ifRevision })],
          ["workflow.delete", () => workflow.delete({ ifRevision })],
        ];
        for (const [door, call] of doors) {
          const error = await caught(call());
          const label = `${door} with ifRevision ${JSON.stringify(value) ?? String(value)}: ${error}`;
          expect(InvalidOptionError.isInstance(error), label).toBe(true);
          expect((error as InvalidOptionError).option, label).toBe("ifRevision");
          expect(error.message, label).toContain("expected a revision");
        }
      }
      expect(await snapshot(store, thread.id)).toEqual(before);
      expect(await store.getState(workflow.id)).toEqual(workflowBefore);
      expect(await listed(store)).toEqual(idsBefore);
    },
    60_000,
  );
}
