import {
  ConcurrencyError,
  ThreadNotFoundError,
  ThreadReplacedError,
  UnsupportedOperationError,
} from "../../errors.js";
import type { LogDriver } from "../../local/log-driver.js";
import type { ThreadStore } from "../../store/store.js";
import type { Thread } from "../../thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const say = (id: string) => ({ id, role: "user" as const, text: id });
const ids = async (thread: Pick<Thread, "messages">) =>
  (await thread.messages()).map((message) => message.id);

/** Whether the store's driver checks `ifRevision` in the same step as a delete (`LogDriver.fencedDelete`). */
const fencedDelete = (store: ThreadStore) =>
  (store as Partial<{ driver: LogDriver }>).driver?.fencedDelete === true;

/**
 * Two handles on one thread: `stale` read it, then `fresh` appended, so `stale.revision` is a revision the
 * thread has moved past. What a leased run holds when another instance took its lease and wrote.
 */
async function twoHolders(store: ThreadStore, id: string) {
  const thread = await store.create({ id });
  await thread.append([say("a"), say("b")]);
  const stale = await store.get(id);
  const fresh = await store.get(id);
  await fresh.append(say("c"));
  return { stale, fresh };
}

/** What a refused write must leave as it was. */
async function snapshot(store: ThreadStore, id: string) {
  const thread = await store.get(id);
  return { revision: thread.revision, messages: await ids(thread), history: await thread.history() };
}

/** Issue 18: checkpoint, fork and delete take `{ ifRevision }`, checked by the store, as append does. */
export function fenceCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "a fenced write on a thread deleted and made again under its id, at the same revision, is a ThreadReplacedError and writes nothing",
    async () => {
      const id = "fenced-replaced";
      const first = await context.store.create({ id });
      await first.append([say("a"), say("b")]);
      const stale = await context.store.get(id);
      await context.store.delete(id);
      const again = await context.store.create({ id });
      // The new thread's revisions start over: bring it to the number the stale handle holds.
      while ((again.revision as number) < (stale.revision as number))
        await again.append(say(`n${again.revision}`));
      expect(again.revision).toBe(stale.revision);
      const before = await snapshot(context.store, id);
      for (const write of [
        () => stale.append(say("late"), { ifRevision: stale.revision as number }),
        () => stale.checkpoint("late", { ifRevision: stale.revision as number }),
        () => stale.update({ metadata: { late: true } }, { ifRevision: stale.revision as number }),
      ]) {
        const error = await caught(write());
        expect(ThreadReplacedError.isInstance(error)).toBe(true);
        expect(ConcurrencyError.isInstance(error)).toBe(true);
        expect(await snapshot(context.store, id)).toEqual(before);
      }
    },
  );

  conformanceCase(
    context,
    "checkpoint honours ifRevision: a stale one is a ConcurrencyError and writes nothing",
    async () => {
      const { stale, fresh } = await twoHolders(context.store, "fenced-checkpoint");
      const before = await snapshot(context.store, fresh.id);
      const error = await caught(stale.checkpoint("late", { ifRevision: stale.revision as number }));
      expect(ConcurrencyError.isInstance(error)).toBe(true);
      expect(await snapshot(context.store, fresh.id)).toEqual(before);
      const checkpoint = await fresh.checkpoint("now", { ifRevision: fresh.revision as number });
      expect(checkpoint.point.position).toBe(3);
      expect(fresh.revision).toBe((before.revision as number) + 1);
    },
  );

  conformanceCase(
    context,
    "fork honours ifRevision: a stale one is a ConcurrencyError and creates nothing",
    async () => {
      const { stale, fresh } = await twoHolders(context.store, "fenced-fork");
      const before = await snapshot(context.store, fresh.id);
      const error = await caught(
        stale.fork({ id: "fenced-fork-late", ifRevision: stale.revision as number }),
      );
      expect(ConcurrencyError.isInstance(error)).toBe(true);
      expect(ThreadNotFoundError.isInstance(await caught(context.store.get("fenced-fork-late")))).toBe(true);
      expect((await context.store.list()).items.map((item) => item.id)).toEqual(["fenced-fork"]);
      expect(await snapshot(context.store, fresh.id)).toEqual(before);
      const fork = await fresh.fork({ id: "fenced-fork-now", at: "b", ifRevision: fresh.revision as number });
      expect(await ids(fork)).toEqual(["a", "b"]);
      // A fork writes nothing to its parent, fenced or not.
      expect(await snapshot(context.store, fresh.id)).toEqual(before);
    },
  );

  conformanceCase(
    context,
    "a stale fork with ifRevision is refused when another write lands after the fork read the thread, before it is made",
    async () => {
      const thread = await context.store.create({ id: "fenced-fork-race" });
      await thread.append([say("a"), say("b")]);
      const stale = await context.store.get(thread.id);
      const driver = (context.store as Partial<{ driver: LogDriver }>).driver;
      if (!driver) return; // a store without a log driver keeps no local threads to fork
      // The other write lands right before the driver's next write of any kind (the fork's check, or the
      // creation of the fork itself), i.e. once the fork has read the thread at `ifRevision`.
      const { commit, createLog } = driver;
      let landed = false;
      const land = async () => {
        if (landed) return;
        landed = true;
        await thread.append(say("c"));
      };
      driver.commit = async function (this: LogDriver, ...args: Parameters<LogDriver["commit"]>) {
        await land();
        return commit.apply(this, args);
      };
      driver.createLog = async function (this: LogDriver, ...args: Parameters<LogDriver["createLog"]>) {
        await land();
        return createLog.apply(this, args);
      };
      try {
        const error = await caught(
          stale.fork({ id: "fenced-fork-race-late", ifRevision: stale.revision as number }),
        );
        expect(ConcurrencyError.isInstance(error)).toBe(true);
      } finally {
        driver.commit = commit;
        driver.createLog = createLog;
      }
      expect(ThreadNotFoundError.isInstance(await caught(context.store.get("fenced-fork-race-late")))).toBe(
        true,
      );
      expect(await ids(await context.store.get(thread.id))).toEqual(["a", "b", "c"]);
    },
  );

  conformanceCase(
    context,
    "delete honours ifRevision, checked as it deletes; a driver that cannot check it refuses and keeps the thread",
    async () => {
      for (const store of [context.store, context.store.scope("fence-tenant")]) {
        const { stale, fresh } = await twoHolders(store, "fenced-delete");
        const before = await snapshot(store, fresh.id);
        const staleError = await caught(stale.delete({ ifRevision: stale.revision as number }));
        const storeError = await caught(store.delete(fresh.id, { ifRevision: stale.revision as number }));
        if (!fencedDelete(store)) {
          // No check in the delete's own step: refused rather than deleted unchecked.
          expect(UnsupportedOperationError.isInstance(staleError)).toBe(true);
          expect(UnsupportedOperationError.isInstance(storeError)).toBe(true);
          expect(
            UnsupportedOperationError.isInstance(
              await caught(fresh.delete({ ifRevision: fresh.revision as number })),
            ),
          ).toBe(true);
          expect(await snapshot(store, fresh.id)).toEqual(before);
          await fresh.delete();
          continue;
        }
        expect(ConcurrencyError.isInstance(staleError)).toBe(true);
        expect(ConcurrencyError.isInstance(storeError)).toBe(true);
        expect(await snapshot(store, fresh.id)).toEqual(before);
        await fresh.delete({ ifRevision: fresh.revision as number });
        expect(ThreadNotFoundError.isInstance(await caught(store.get(fresh.id)))).toBe(true);
      }
    },
  );
}
