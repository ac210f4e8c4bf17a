import { ConcurrencyError, PointNotFoundError } from "../../errors.js";
import type { Message } from "../../message.js";
import type { Thread } from "../../thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const ids = async (thread: Pick<Thread, "messages">) =>
  (await thread.messages()).map((message: Message) => message.id);
const say = (id: string) => ({ id, role: "user" as const, text: id });

/** SPEC §4: forks, checkpoints, rollbacks and time travel never destroy history. */
export function historyCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "fork at the end and at a message: own id, revision, metadata and context",
    async () => {
      const parent = await context.store.create({
        id: "parent",
        metadata: { team: "a" },
        context: { memory: { n: 1 } },
      });
      await parent.append([say("a"), say("b"), say("c")]);
      const whole = await parent.fork({ id: "whole" });
      const early = await parent.fork({ at: "a", metadata: { branch: "early" } });
      expect(whole.id).toBe("whole");
      expect(await ids(whole)).toEqual(["a", "b", "c"]);
      expect(await ids(early)).toEqual(["a"]);
      expect(early.id).not.toBe(parent.id);
      expect(early.metadata).toEqual({ team: "a", branch: "early" });
      expect(early.context).toEqual({ memory: { n: 1 } });
      expect(early.revision).toBe(0);
      expect(await caught(parent.fork({ at: "zzz" }))).toBeInstanceOf(PointNotFoundError);
      expect((await context.store.get(early.id)).type).toBe(context.store.nativeType);
    },
  );

  conformanceCase(context, "parent and fork grow apart; a fork of a fork sees its own prefix", async () => {
    const parent = await context.store.create();
    await parent.append([say("a"), say("b")]);
    const fork = await parent.fork();
    await parent.append(say("p"));
    await fork.append(say("f"));
    const grandchild = await fork.fork({ at: "a" });
    await grandchild.append(say("g"));
    await fork.append(say("f2"));
    expect(await ids(parent)).toEqual(["a", "b", "p"]);
    expect(await ids(fork)).toEqual(["a", "b", "f", "f2"]);
    expect(await ids(grandchild)).toEqual(["a", "g"]);
    // A message id from the shared prefix is still a duplicate in the fork.
    await fork.append(say("a"));
    expect(await ids(fork)).toEqual(["a", "b", "f", "f2"]);
  });

  conformanceCase(context, "concurrent appends to parent and fork land in each, once", async () => {
    const parent = await context.store.create();
    await parent.append(say("root"));
    const fork = await parent.fork();
    await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        index % 2 ? parent.append(say(`p${index}`)) : fork.append(say(`f${index}`)),
      ),
    );
    const parentIds = await ids(parent);
    const forkIds = await ids(fork);
    expect(parentIds).toHaveLength(51);
    expect(forkIds).toHaveLength(51);
    expect(parentIds.filter((id) => id.startsWith("f"))).toEqual([]);
    expect(forkIds.filter((id) => id.startsWith("p"))).toEqual([]);
  });

  conformanceCase(
    context,
    "rollback, append, then return to a checkpoint taken before the rollback",
    async () => {
      const thread = await context.store.create();
      await thread.append([say("a"), say("b")]);
      const two = await thread.checkpoint("two");
      await thread.append([say("c"), say("d")]);
      const four = await thread.checkpoint("four");
      await thread.rollback(two);
      expect(await ids(thread)).toEqual(["a", "b"]);
      await thread.append(say("x"));
      expect(await ids(thread)).toEqual(["a", "b", "x"]);
      await thread.rollback(four.id);
      expect(await ids(thread)).toEqual(["a", "b", "c", "d"]);
      await thread.rollback("a");
      expect(await ids(thread)).toEqual(["a"]);
      const history = await thread.history();
      expect(history.map((event) => event.kind)).toEqual([
        "checkpoint",
        "checkpoint",
        "rollback",
        "rollback",
        "rollback",
      ]);
      const firstRollback = history[2] as Extract<(typeof history)[number], { kind: "rollback" }>;
      expect(firstRollback.from.position).toBe(4);
      expect(firstRollback.to.position).toBe(2);
      // Forward again, to the end the first rollback left behind.
      await thread.rollback(firstRollback.from);
      expect(await ids(thread)).toEqual(["a", "b", "c", "d"]);
      expect(await caught(thread.rollback("no-such-point"))).toBeInstanceOf(PointNotFoundError);
    },
  );

  conformanceCase(context, "rollback honours ifRevision and writes nothing when it fails", async () => {
    const thread = await context.store.create();
    await thread.append([say("a"), say("b")]);
    const stale = thread.revision as number;
    await thread.append(say("c"));
    expect(await caught(thread.rollback("a", { ifRevision: stale }))).toBeInstanceOf(ConcurrencyError);
    expect(await ids(thread)).toEqual(["a", "b", "c"]);
    await thread.rollback("a", { ifRevision: thread.revision });
    expect(await ids(thread)).toEqual(["a"]);
  });

  conformanceCase(context, "deleting the parent breaks neither the fork nor its checkpoints", async () => {
    const parent = await context.store.create({ id: "doomed-parent" });
    await parent.append([say("a"), say("b"), say("c")]);
    const parentCheckpoint = await parent.checkpoint();
    const fork = await parent.fork({ at: "b" });
    const forkCheckpoint = await fork.checkpoint("at b");
    await fork.append(say("f"));
    const grandchild = await fork.fork();
    await parent.delete();
    expect(await ids(fork)).toEqual(["a", "b", "f"]);
    expect(await (await fork.at(forkCheckpoint)).messages()).toHaveLength(2);
    await fork.delete();
    expect(await ids(grandchild)).toEqual(["a", "b", "f"]);
    await grandchild.append(say("g"));
    expect(await ids(await context.store.get(grandchild.id))).toEqual(["a", "b", "f", "g"]);
    expect(parentCheckpoint.threadId).toBe("doomed-parent");
  });

  conformanceCase(context, "at() reads the past and changes nothing", async () => {
    const thread = await context.store.create();
    await thread.append([say("a"), say("b")]);
    const checkpoint = await thread.checkpoint();
    await thread.append(say("c"));
    const revision = thread.revision;
    const past = await thread.at(checkpoint);
    expect(await ids(past)).toEqual(["a", "b"]);
    expect(await past.messages({ last: 1 })).toHaveLength(1);
    expect(await past.view({ maxMessages: 1 })).toHaveLength(1);
    expect(past).not.toHaveProperty("append");
    expect(await ids(await thread.at("a"))).toEqual(["a"]);
    expect(await ids(thread)).toEqual(["a", "b", "c"]);
    await thread.refresh();
    expect(thread.revision).toBe(revision);
  });

  conformanceCase(context, "update replaces metadata and context under ifRevision", async () => {
    const thread = await context.store.create({ metadata: { a: 1 } });
    await thread.update(
      { metadata: { a: 2 }, context: { memory: { facts: ["x"] } } },
      { ifRevision: thread.revision },
    );
    const again = await context.store.get(thread.id);
    expect(again.metadata).toEqual({ a: 2 });
    expect(again.context).toEqual({ memory: { facts: ["x"] } });
    expect(await caught(thread.update({ metadata: {} }, { ifRevision: 0 }))).toBeInstanceOf(ConcurrencyError);
  });
}
