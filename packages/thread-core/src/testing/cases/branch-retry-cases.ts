import type { LogThread } from "../../local/log-thread.js";
import type { WorkflowThread } from "../../workflow/workflow-thread.js";
import { expect } from "../expect.js";
import { conformanceCase, type SuiteContext } from "../suite-context.js";
import { answer, chat, ids, user } from "./branch-cases.js";

const versionIds = async (thread: LogThread, messageId: string) =>
  (await thread.alternatives(messageId)).map((version) => version.id);

/** Chat branching under retries, concurrent writers, forks, export and import, and in workflows. */
export function branchRetryCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "edit, regenerate and switchTo retried (same ids, or the same operation id) write nothing more",
    async () => {
      const thread = await chat(context);
      const first = await thread.edit("u2", user("u2b"));
      const revision = thread.revision;
      // The same replacement under its id, from this handle or another: the thread holds it already.
      expect(await thread.edit("u2", user("u2b"))).toEqual(first);
      const other = (await context.store.get(thread.id)) as LogThread;
      expect(await other.edit("u2", user("u2b"))).toEqual(first);
      await thread.refresh();
      expect(thread.revision).toBe(revision);

      // Without ids, an operation id makes the retry a no-op: the replacement's generated id is kept.
      const once = await thread.edit("u2b", { role: "user", text: "third" }, { operationId: "edit-3" });
      const again = await other.edit("u2b", { role: "user", text: "third" }, { operationId: "edit-3" });
      expect(again).toEqual(once);
      expect(await versionIds(thread, once.id)).toEqual(["u2", "u2b", once.id]);

      // A regenerate without reply, retried, leaves the answer dropped once.
      await thread.append(answer("a3"));
      await thread.regenerate("a3");
      const afterRegenerate = thread.revision;
      expect(await thread.regenerate("a3")).toBeUndefined();
      expect(thread.revision).toBe(afterRegenerate);
      expect(await other.regenerate("a3", undefined, { operationId: "r1" })).toBeUndefined();
      expect(await other.regenerate("a3", undefined, { operationId: "r1" })).toBeUndefined();
      await thread.refresh();
      expect(await ids(thread)).toEqual(["u1", "a1", once.id]);

      // A switch retried: the version is current already.
      await thread.switchTo("u2", { operationId: "s1" });
      const switched = thread.revision;
      await other.switchTo("u2", { operationId: "s1" });
      await thread.switchTo("u2");
      await thread.refresh();
      expect(thread.revision).toBe(switched);
      expect(await ids(thread)).toEqual(["u1", "a1", "u2", "a2"]);
    },
  );

  conformanceCase(
    context,
    "concurrent edits of one message from two handles both land as versions, one current",
    async () => {
      const thread = await chat(context);
      const second = await (context.options.openSecondStore?.(context.store) ??
        Promise.resolve(context.store));
      try {
        const handles = await Promise.all(
          [0, 1, 2, 3].map((index) => (index % 2 ? second : context.store).get(thread.id)),
        );
        await Promise.all(
          handles.map((handle, index) => (handle as LogThread).edit("u2", user(`edit-${index}`))),
        );
        const versions = await thread.alternatives("u2");
        expect(versions.map((version) => version.id).sort()).toEqual([
          "edit-0",
          "edit-1",
          "edit-2",
          "edit-3",
          "u2",
        ]);
        expect(versions[0]?.id).toBe("u2");
        const current = versions.filter((version) => version.current);
        expect(current).toHaveLength(1);
        expect(await ids(thread)).toEqual(["u1", "a1", current[0]?.id]);
        // Every version's branch reads back whole.
        for (const version of versions) {
          expect(await ids(await thread.at(version.end))).toEqual(
            version.id === "u2" ? ["u1", "a1", "u2", "a2"] : ["u1", "a1", version.id],
          );
        }
        // And every one can be switched to, from either store.
        await (handles[1] as LogThread).switchTo("edit-0");
        expect(await ids(thread)).toEqual(["u1", "a1", "edit-0"]);
      } finally {
        if (second !== context.store) await second.close();
      }
    },
  );

  conformanceCase(
    context,
    "a fork of a branch holds that branch; a version's end forks its branch",
    async () => {
      const thread = await chat(context);
      await thread.edit("u2", user("u2b"));
      const fork = (await thread.fork()) as LogThread;
      expect(await ids(fork)).toEqual(["u1", "a1", "u2b"]);
      const [original] = await thread.alternatives("u2b");
      if (!original) throw new Error("no versions");
      const old = await thread.fork({ at: original.end });
      expect(await ids(old)).toEqual(["u1", "a1", "u2", "a2"]);
      // The fork branches on its own: its edits are not the parent's versions.
      await fork.edit("u2b", user("fork-edit"));
      expect(await versionIds(fork, "fork-edit")).toEqual(["u2b", "fork-edit"]);
      expect(await versionIds(thread, "u2b")).toEqual(["u2", "u2b"]);
      expect(await ids(thread)).toEqual(["u1", "a1", "u2b"]);
    },
  );

  conformanceCase(context, "export and import keep every version and its branch", async () => {
    const thread = await chat(context, "branched");
    await thread.edit("u2", user("u2b"));
    await thread.append(answer("a2b"));
    await thread.regenerate("a2b", answer("a2c"));
    const exported = JSON.parse(JSON.stringify(await context.store.export("branched")));
    const copy = (await context.store.import(exported, { id: "branched-copy" })) as LogThread;
    expect(await ids(copy)).toEqual(["u1", "a1", "u2b", "a2c"]);
    expect(await copy.alternatives("a2c")).toEqual(await thread.alternatives("a2c"));
    expect(await copy.alternatives("u2b")).toEqual(await thread.alternatives("u2b"));
    await copy.switchTo("u2");
    expect(await ids(copy)).toEqual(["u1", "a1", "u2", "a2"]);
    await copy.switchTo("u2b");
    await copy.switchTo("a2b");
    expect(await ids(copy)).toEqual(["u1", "a1", "u2b", "a2b"]);
    expect(await ids(thread)).toEqual(["u1", "a1", "u2b", "a2c"]);
  });

  conformanceCase(context, "a workflow's local sub-thread edits, regenerates and switches", async () => {
    const workflow = (await context.store.create("workflow", { threads: ["main"] })) as WorkflowThread;
    const main = workflow.thread() as LogThread;
    await main.append([user("u1"), answer("a1")]);
    await main.regenerate("a1", answer("a1b"));
    await main.edit("u1", user("u1b"));
    const again = (await context.store.get(workflow.id)) as WorkflowThread;
    const reread = again.thread() as LogThread;
    expect(await ids(reread)).toEqual(["u1b"]);
    await reread.switchTo("u1");
    expect(await ids(main)).toEqual(["u1", "a1b"]);
    expect(await versionIds(main, "a1b")).toEqual(["a1", "a1b"]);
  });
}
