import { ConcurrencyError, ThreadNotFoundError, UnsupportedOperationError } from "../../errors.js";
import type { LogDriver } from "../../local/log-driver.js";
import type { ThreadStore } from "../../store/store.js";
import type { Checkpoint, Thread } from "../../thread.js";
import { WorkflowPartlyDeletedError } from "../../workflow/workflow-delete-error.js";
import type { WorkflowThread } from "../../workflow/workflow-thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const KEYS = ["main", "planner"];

const fencedDelete = (store: ThreadStore) =>
  (store as Partial<{ driver: LogDriver }>).driver?.fencedDelete === true;

/**
 * Runs `between` once, the first time any of `objects` has `method` called (before the call, or after it
 * with `{ after: true }`): a write of another holder landing at that exact step of a change.
 */
function once(
  objects: object[],
  method: string,
  between: () => Promise<unknown>,
  options: { after?: boolean } = {},
): void {
  let done = false;
  for (const object of objects) {
    const target = object as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = target[method] as (...args: unknown[]) => Promise<unknown>;
    target[method] = async (...args: unknown[]) => {
      const first = !done;
      done = true;
      if (first && !options.after) await between();
      const result = await original.apply(object, args);
      if (first && options.after) await between();
      return result;
    };
  }
}

const append = (thread: Thread, id: string) => thread.append({ id, role: "user", text: id });

/** Each sub-thread's messages, revision and history, and the workflow's revision and history. */
async function snapshot(store: ThreadStore, id: string) {
  const workflow = (await store.get(id)) as WorkflowThread;
  const threads: Record<string, unknown> = {};
  for (const key of workflow.keys()) {
    const sub = workflow.thread(key);
    threads[key] = {
      id: sub.id,
      revision: sub.revision,
      messages: (await sub.messages()).map((message) => message.id),
      history: await sub.history(),
    };
  }
  return { revision: workflow.revision, history: await workflow.history(), threads };
}

/**
 * A workflow with a checkpoint and messages after it in every sub-thread, and two holders of it: `stale`
 * read it, then `fresh` wrote (`write`), as a new lease holder does after taking over a frozen run's lease.
 */
async function twoHolders(store: ThreadStore, write: (fresh: WorkflowThread) => Promise<unknown>) {
  const workflow = (await store.create("workflow", { threads: KEYS })) as WorkflowThread;
  for (const key of KEYS) await workflow.thread(key).append({ id: `${key}-1`, role: "user", text: "kept" });
  const checkpoint = await workflow.checkpoint("planned");
  for (const key of KEYS) await workflow.thread(key).append({ id: `${key}-2`, role: "user", text: "after" });
  const stale = (await store.get(workflow.id)) as WorkflowThread;
  const fresh = (await store.get(workflow.id)) as WorkflowThread;
  await write(fresh);
  return { stale, fresh, checkpoint: checkpoint as Checkpoint };
}

/** Writes a new holder makes: to the workflow itself, or only to a sub-thread (the workflow's revision stays). */
const WRITES: Record<string, (fresh: WorkflowThread) => Promise<unknown>> = {
  "the workflow": (fresh) => fresh.update({ metadata: { holder: "fresh" } }),
  "a sub-thread only": (fresh) => fresh.thread("planner").append({ id: "fresh", role: "user", text: "new" }),
};

/** Issue 18: a workflow's writes under `{ ifRevision }` are refused before any sub-thread moves. */
export function workflowFenceCases(context: SuiteContext): void {
  for (const [name, write] of Object.entries(WRITES)) {
    conformanceCase(
      context,
      `a stale holder's workflow rollback with ifRevision, after a write to ${name}, moves no sub-thread`,
      async () => {
        const { stale, fresh, checkpoint } = await twoHolders(context.store, write);
        const before = await snapshot(context.store, fresh.id);
        const error = await caught(stale.rollback(checkpoint, { ifRevision: stale.revision }));
        expect(ConcurrencyError.isInstance(error)).toBe(true);
        expect(await snapshot(context.store, fresh.id)).toEqual(before);
        // The holder that saw the last writes rolls back.
        await fresh.refresh();
        await fresh.rollback(checkpoint, { ifRevision: fresh.revision });
        for (const key of KEYS) {
          expect((await fresh.thread(key).messages()).map((message) => message.id)).toEqual([`${key}-1`]);
        }
      },
    );
  }

  conformanceCase(
    context,
    "a stale holder's workflow checkpoint, fork and delete with ifRevision write nothing anywhere",
    async () => {
      const { stale, fresh } = await twoHolders(context.store, WRITES["a sub-thread only"] as never);
      const before = await snapshot(context.store, fresh.id);
      const listed = async () => (await context.store.list()).items.map((item) => item.id).sort();
      const threads = await listed();
      // One after another: started at once, a refusal that comes before its turn to be awaited is unhandled.
      const attempts = [
        () => stale.checkpoint("late", { ifRevision: stale.revision }),
        () => stale.fork({ id: "late-fork", ifRevision: stale.revision }),
        () => stale.delete({ ifRevision: stale.revision }),
      ];
      for (const attempt of attempts) expect(ConcurrencyError.isInstance(await caught(attempt()))).toBe(true);
      expect(await snapshot(context.store, fresh.id)).toEqual(before);
      expect(await listed()).toEqual(threads);

      await fresh.refresh();
      await fresh.checkpoint("now", { ifRevision: fresh.revision });
      const fork = await fresh.fork({ id: "now-fork", ifRevision: fresh.revision });
      expect((await fork.thread("planner").messages()).map((message) => message.id)).toEqual([
        "planner-1",
        "planner-2",
        "fresh",
      ]);
      const fenced = (context.store as Partial<{ driver: LogDriver }>).driver?.fencedDelete === true;
      if (!fenced) {
        // The store cannot check a revision as it deletes: refused, and nothing is deleted.
        const refused = await caught(fresh.delete({ ifRevision: fresh.revision }));
        expect(UnsupportedOperationError.isInstance(refused)).toBe(true);
        expect((await context.store.get(fresh.id)).revision).toBe(fresh.revision);
        return;
      }
      const subs = KEYS.map((key) => fresh.thread(key).id);
      await fresh.delete({ ifRevision: fresh.revision });
      for (const id of [fresh.id, ...subs]) {
        expect(ThreadNotFoundError.isInstance(await caught(context.store.get(id)))).toBe(true);
      }
    },
  );

  conformanceCase(
    context,
    "a stale holder's workflow delete with ifRevision, after the new holder appended to main just before the first delete, deletes nothing",
    async () => {
      const { stale, fresh } = await twoHolders(context.store, async () => {});
      const subs = KEYS.map((key) => stale.thread(key));
      once([context.store, ...subs], "delete", () => append(fresh.thread("main"), "fresh"));
      const error = await caught(stale.delete({ ifRevision: stale.revision }));
      const refused = fencedDelete(context.store)
        ? ConcurrencyError.isInstance(error)
        : UnsupportedOperationError.isInstance(error);
      expect(refused).toBe(true);
      expect(WorkflowPartlyDeletedError.isInstance(error)).toBe(false);
      // The workflow and every sub-thread are still there, with the new holder's write.
      const kept = (await context.store.get(fresh.id)) as WorkflowThread;
      expect(kept.revision).toBe(fresh.revision);
      expect((await kept.thread("main").messages()).map((message) => message.id)).toEqual([
        "main-1",
        "main-2",
        "fresh",
      ]);
      for (const sub of subs) expect((await context.store.get(sub.id)).id).toBe(sub.id);
    },
  );

  conformanceCase(
    context,
    "a stale holder's workflow delete refused at a later sub-thread names what it deleted and keeps the workflow",
    async () => {
      if (!fencedDelete(context.store)) return; // refused before anything, as the case above checks
      const { stale, fresh } = await twoHolders(context.store, async () => {});
      const [main, planner] = KEYS.map((key) => stale.thread(key)) as [Thread, Thread];
      once([main], "delete", () => append(fresh.thread("planner"), "fresh"), { after: true });
      const error = await caught(stale.delete({ ifRevision: stale.revision }));
      expect(WorkflowPartlyDeletedError.isInstance(error)).toBe(true);
      expect(ConcurrencyError.isInstance(error)).toBe(true);
      expect((error as WorkflowPartlyDeletedError).deleted).toEqual(["main"]);
      expect(error.message).toContain('Already deleted: sub-thread "main"');
      expect(ThreadNotFoundError.isInstance(await caught(context.store.get(main.id)))).toBe(true);
      expect((await context.store.get(planner.id)).revision).toBe((planner.revision ?? 0) + 1);
      expect((await context.store.getState(fresh.id)).revision).toBe(fresh.revision);
    },
  );

  const STEPS: Record<string, (stale: WorkflowThread, checkpoint: Checkpoint) => Promise<unknown>> = {
    checkpoint: (stale) => stale.checkpoint("late", { ifRevision: stale.revision }),
    rollback: (stale, checkpoint) => stale.rollback(checkpoint, { ifRevision: stale.revision }),
  };
  for (const [name, step] of Object.entries(STEPS)) {
    conformanceCase(
      context,
      `a stale holder's workflow ${name} is not committed when the new holder wrote to a sub-thread after its step`,
      async () => {
        const { stale, fresh, checkpoint } = await twoHolders(context.store, async () => {});
        const before = (await context.store.get(fresh.id)) as WorkflowThread;
        // The new holder's write lands after the last sub-thread's own fenced step, before the workflow's commit.
        once([stale.thread("planner")], name, () => append(fresh.thread("planner"), "fresh"), {
          after: true,
        });
        const error = await caught(step(stale, checkpoint));
        expect(ConcurrencyError.isInstance(error)).toBe(true);
        const after = (await context.store.get(fresh.id)) as WorkflowThread;
        expect(after.revision).toBe(before.revision);
        expect(await after.history()).toEqual(await before.history());
        expect(after.execution).toEqual(before.execution);
        const planner = await after.thread("planner").messages();
        expect(planner.map((message) => message.id).at(-1)).toBe("fresh");
      },
    );
  }
}
