import {
  ConcurrencyError,
  PointNotFoundError,
  ThreadExistsError,
  ThreadNotFoundError,
  UnknownThreadTypeError,
  UnsupportedOperationError,
} from "../../errors.js";
import type { ThreadStore } from "../../store/store.js";
import type { Thread } from "../../thread.js";
import type { WorkflowRollbackReport } from "../../workflow/workflow-checkpoints.js";
import type { WorkflowThread } from "../../workflow/workflow-thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

/** The texts of a thread's messages, or of a thread's past. */
const texts = async (thread: Pick<Thread, "messages">) =>
  (await thread.messages()).map((message) => (message.contents[0] as { text?: string }).text);

const FOREIGN = {
  $type: "acme.remote",
  id: "remote-1",
  conversationId: "conv_9",
  nested: { keep: [1, "two"] },
};

/** Every thread id the store lists, page by page. */
const storedIds = async (store: ThreadStore) => {
  const ids: string[] = [];
  for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
    const page = await store.list({ cursor });
    ids.push(...page.items.map((item) => item.id));
    cursor = page.cursor;
  }
  return ids.sort();
};

/** SPEC §6: workflow threads hold sub-threads of any type and execution state that resumes anywhere. */
export function workflowCases(context: SuiteContext): void {
  const createWorkflow = async (threads = ["main", "researcher"]) =>
    (await context.store.create("workflow", { threads, metadata: { chat: "c1" } })) as WorkflowThread;

  conformanceCase(context, "a workflow holds sub-threads that agents append to concurrently", async () => {
    const workflow = await createWorkflow();
    const writer = await workflow.addThread("writer");
    await Promise.all([
      ...Array.from({ length: 40 }, (_, index) =>
        workflow.thread("main").append({ role: "user", text: `m${index}` }),
      ),
      ...Array.from({ length: 40 }, (_, index) =>
        workflow.thread("researcher").append({ role: "assistant", text: `r${index}` }),
      ),
      ...Array.from({ length: 40 }, (_, index) => writer.append({ role: "assistant", text: `w${index}` })),
      workflow.enqueue("plan"),
    ]);
    const again = (await context.store.get(workflow.id)) as WorkflowThread;
    expect(again.type).toBe("workflow");
    expect(again.keys().sort()).toEqual(["main", "researcher", "writer"]);
    for (const key of again.keys()) expect(await again.thread(key).messages()).toHaveLength(40);
    expect(again.execution.next).toHaveLength(1);
    expect(await again.messages()).toHaveLength(40);
    await again.removeThread("writer", { delete: true });
    expect((await context.store.get(workflow.id)) as WorkflowThread).toMatchObject({});
    expect(((await context.store.get(workflow.id)) as WorkflowThread).keys().sort()).toEqual([
      "main",
      "researcher",
    ]);
  });

  conformanceCase(context, "execution state resumes from another handle where it stopped", async () => {
    const workflow = await createWorkflow(["main"]);
    const plan = await workflow.enqueue("plan", { input: { goal: "trip" }, threadKey: "main" });
    await workflow.enqueue("research");
    await workflow.enqueue("write");
    await workflow.start();
    await workflow.complete(plan.id, { messageIds: ["m1"] });
    const research = await workflow.start();
    const resumed = (await context.store.get(workflow.id)) as WorkflowThread;
    expect(resumed.execution.current).toEqual([research.id]);
    expect(
      resumed.execution.next.map((id) => resumed.execution.steps.find((step) => step.id === id)?.name),
    ).toEqual(["write"]);
    await resumed.fail(research.id, "source unreachable");
    const step = resumed.execution.steps.find((candidate) => candidate.id === research.id);
    expect(step).toMatchObject({ status: "failed", error: "source unreachable" });
    expect(resumed.execution.steps[0]).toMatchObject({ status: "completed", output: { messageIds: ["m1"] } });
    // The first handle is now stale: its next change is refused and writes nothing.
    expect(await caught(workflow.start())).toBeInstanceOf(ConcurrencyError);
    await workflow.refresh();
    expect((await workflow.start()).name).toBe("write");
  });

  conformanceCase(
    context,
    "checkpoints cover execution and sub-threads; rollback reports what it could not restore",
    async () => {
      const workflow = await createWorkflow();
      await workflow.thread("main").append({ role: "user", text: "before" });
      await workflow.thread("researcher").append({ role: "assistant", text: "notes" });
      const step = await workflow.enqueue("research");
      const opened = (await context.store.open({
        ...workflow.toJSON(),
        threads: { ...workflow.toJSON().threads, remote: FOREIGN },
      })) as WorkflowThread;
      await opened.save();
      const checkpoint = await opened.checkpoint("planned");
      await opened.thread("main").append({ role: "user", text: "after" });
      await opened.thread("researcher").append({ role: "assistant", text: "more notes" });
      await opened.start(step.id);
      await opened.addThread("late");
      const report = (await opened.rollback(checkpoint)) as WorkflowRollbackReport;
      expect(report.rolledBack.sort()).toEqual(["main", "researcher"]);
      expect(report.notRolledBack).toEqual([
        { key: "remote", type: "acme.remote", reason: expect.stringContaining("not installed") },
      ]);
      expect(report.detached).toEqual(["late"]);
      const again = (await context.store.get(workflow.id)) as WorkflowThread;
      expect(await texts(again.thread("main"))).toEqual(["before"]);
      expect(await texts(again.thread("researcher"))).toEqual(["notes"]);
      expect(again.execution.next).toEqual([step.id]);
      expect(again.execution.current).toEqual([]);
      expect(await (await again.at(checkpoint)).messages()).toHaveLength(1);
      expect((await again.history()).map((event) => event.kind)).toEqual(["checkpoint", "rollback"]);
    },
  );

  conformanceCase(
    context,
    "a sub-thread of a type not installed loads, saves and round-trips unchanged",
    async () => {
      const workflow = await createWorkflow(["main"]);
      const json = JSON.parse(
        JSON.stringify({ ...workflow.toJSON(), threads: { ...workflow.toJSON().threads, remote: FOREIGN } }),
      );
      const opened = (await context.store.open(json)) as WorkflowThread;
      await opened.save();
      await opened.enqueue("later");
      const again = (await context.store.get(workflow.id)) as WorkflowThread;
      expect(JSON.stringify(again.toJSON().threads.remote)).toBe(JSON.stringify(FOREIGN));
      expect(() => again.thread("remote")).toThrow(UnknownThreadTypeError);
      expect(await caught(again.fork())).toBeInstanceOf(Error);
    },
  );

  conformanceCase(
    context,
    "a workflow read from JSON into a store that lacks it is saved there as new",
    async () => {
      const json = {
        $type: "workflow",
        id: "carried",
        createdAt: new Date().toISOString(),
        revision: 7,
        threads: { remote: FOREIGN },
      };
      const opened = (await context.store.open(json)) as WorkflowThread;
      await opened.enqueue("first");
      expect(opened.revision).toBe(1);
      const again = (await context.store.get("carried")) as WorkflowThread;
      expect(again.execution.next).toHaveLength(1);
      await again.enqueue("second");
      expect(await caught(opened.enqueue("stale"))).toBeInstanceOf(ConcurrencyError);
    },
  );

  conformanceCase(
    context,
    "a workflow deleted through one handle stays deleted when a handle read before saves",
    async () => {
      // With and without local sub-threads: the store's refusal must not read as "new in this store".
      for (const threads of [["main"], []]) {
        const workflow = await createWorkflow(threads);
        const stale = (await context.store.get(workflow.id)) as WorkflowThread;
        const saved = (await context.store.get(workflow.id)) as WorkflowThread;
        await saved.enqueue("saved once by this handle");
        await workflow.delete();
        const update = await caught(
          stale.update({ metadata: { late: true } }, { ifRevision: stale.revision }),
        );
        expect(ThreadNotFoundError.isInstance(update)).toBe(true);
        expect(ThreadNotFoundError.isInstance(await caught(saved.enqueue("late")))).toBe(true);
        expect(ThreadNotFoundError.isInstance(await caught(context.store.get(workflow.id)))).toBe(true);
        expect(stale.metadata).toEqual({ chat: "c1" });
      }
    },
  );

  conformanceCase(context, "import refuses a taken id and writes nothing it cannot open", async () => {
    const json = {
      $type: "workflow",
      id: "imported",
      createdAt: new Date().toISOString(),
      revision: 3,
      threads: { remote: FOREIGN },
    };
    const imported = (await context.store.import(json)) as WorkflowThread;
    expect(imported.revision).toBe(1);
    await imported.enqueue("works");
    expect(await caught(context.store.import(json))).toBeInstanceOf(ThreadExistsError);
    const broken = {
      ...json,
      id: "broken",
      threads: { main: { $type: context.store.nativeType, id: "no-such-log", createdAt: json.createdAt } },
    };
    expect(await caught(context.store.import(broken))).toBeInstanceOf(Error);
    expect(await caught(context.store.get("broken"))).toBeInstanceOf(ThreadNotFoundError);
  });

  conformanceCase(context, "a workflow forks with its sub-threads and execution state", async () => {
    const workflow = await createWorkflow();
    await workflow.thread("main").append({ role: "user", text: "shared" });
    await workflow.enqueue("next-step");
    const fork = (await workflow.fork({ id: "wf-fork" })) as WorkflowThread;
    await fork.thread("main").append({ role: "user", text: "fork only" });
    expect(await texts(workflow.thread("main"))).toEqual(["shared"]);
    expect(await texts(fork.thread("main"))).toEqual(["shared", "fork only"]);
    expect(((await context.store.get("wf-fork")) as WorkflowThread).execution.next).toHaveLength(1);
    await fork.delete();
    expect(await texts(workflow.thread("main"))).toEqual(["shared"]);
  });

  conformanceCase(
    context,
    "a workflow forks at a checkpoint with the execution state and every sub-thread as they were there",
    async () => {
      const workflow = await createWorkflow(["main", "planner"]);
      await workflow.thread("main").append({ role: "user", text: "m1" });
      await workflow.thread("planner").append({ role: "assistant", text: "p1" });
      const step = await workflow.enqueue("plan");
      const checkpoint = await workflow.checkpoint("planned");
      await workflow.thread("main").append({ role: "user", text: "m2" });
      await workflow.thread("planner").append({ role: "assistant", text: "p2" });
      await workflow.start(step.id);
      await (await workflow.addThread("late")).append({ role: "assistant", text: "l1" });
      // Taken out of the workflow after the checkpoint, still part of it there.
      await workflow.removeThread("planner");

      const fork = await workflow.fork({ at: checkpoint, id: "wf-at-checkpoint" });
      for (const forked of [fork, (await context.store.get("wf-at-checkpoint")) as WorkflowThread]) {
        expect(forked.keys().sort()).toEqual(["main", "planner"]);
        expect(await texts(forked.thread("main"))).toEqual(["m1"]);
        expect(await texts(forked.thread("planner"))).toEqual(["p1"]);
        expect(forked.execution.next).toEqual([step.id]);
        expect(forked.execution.current).toEqual([]);
      }
      await fork.thread("planner").append({ role: "assistant", text: "fork only" });
      await fork.start(step.id);
      expect(await texts(fork.thread("planner"))).toEqual(["p1", "fork only"]);
      expect(await texts(workflow.thread("main"))).toEqual(["m1", "m2"]);
      expect(workflow.execution.current).toEqual([step.id]);

      // The checkpoint's id works as well, from a handle that did not take it.
      const stale = (await context.store.get(workflow.id)) as WorkflowThread;
      const byId = await stale.fork({ at: checkpoint.id });
      expect(await texts(byId.thread("main"))).toEqual(["m1"]);
      expect(byId.execution.next).toEqual([step.id]);
    },
  );

  conformanceCase(context, "a workflow forks after a message of one sub-thread", async () => {
    const workflow = await createWorkflow(["main", "planner"]);
    const [m1] = await workflow.thread("main").append({ role: "user", text: "m1" });
    await workflow.thread("main").append({ role: "user", text: "m2" });
    const planned = await workflow
      .thread("planner")
      .append([1, 2, 3].map((index) => ({ role: "assistant" as const, text: `p${index}` })));
    await workflow.enqueue("write");

    const fork = await workflow.fork({ at: { thread: "planner", message: planned[1]?.id as string } });
    expect(await texts(fork.thread("planner"))).toEqual(["p1", "p2"]);
    // The other sub-threads and the execution state are forked as they are now.
    expect(await texts(fork.thread("main"))).toEqual(["m1", "m2"]);
    expect(fork.execution.next).toHaveLength(1);

    // A message id alone names a message of main, as it does for messages() and at().
    const atMain = await workflow.fork({ at: m1?.id as string });
    expect(await texts(atMain.thread("main"))).toEqual(["m1"]);
    expect(await texts(atMain.thread("planner"))).toEqual(["p1", "p2", "p3"]);
  });

  conformanceCase(context, "at() and fork() take a checkpoint of the main sub-thread", async () => {
    const workflow = await createWorkflow(["main"]);
    await workflow.append({ role: "user", text: "m1" });
    const mainCheckpoint = await workflow.thread("main").checkpoint("main only");
    await workflow.append({ role: "user", text: "m2" });
    const past = await workflow.at(mainCheckpoint);
    expect((await past.messages()).map((message) => (message.contents[0] as { text: string }).text)).toEqual([
      "m1",
    ]);
    const fork = await workflow.fork({ at: mainCheckpoint });
    expect(await texts(fork.thread("main"))).toEqual(["m1"]);
  });

  conformanceCase(
    context,
    "a fork at a point the workflow does not have is a typed error and creates nothing",
    async () => {
      const workflow = await createWorkflow(["main", "planner"]);
      await workflow.thread("planner").append({ role: "assistant", text: "p1" });
      const checkpoint = await workflow.checkpoint();
      const other = await createWorkflow(["main"]);
      const foreign = await other.checkpoint();
      const before = await storedIds(context.store);
      const targets = [
        "no-such-point",
        { ...checkpoint, id: "wcp_missing" },
        foreign,
        { thread: "planner", message: "no-such-message" },
      ];
      for (const at of targets) {
        expect(await caught(workflow.fork({ at, id: "wf-bad" }))).toBeInstanceOf(PointNotFoundError);
      }
      expect(
        await caught(workflow.fork({ at: { thread: "ghost", message: "m" }, id: "wf-bad" })),
      ).toBeInstanceOf(ThreadNotFoundError);
      // A taken id: the sub-thread forks made before the workflow's save are deleted again.
      expect(await caught(workflow.fork({ at: checkpoint, id: other.id }))).toBeInstanceOf(ConcurrencyError);
      expect(await storedIds(context.store)).toEqual(before);
      expect(((await context.store.get(other.id)) as WorkflowThread).keys()).toEqual(["main"]);
    },
  );

  conformanceCase(
    context,
    "a fork at a checkpoint refuses a sub-thread whose point there was not kept",
    async () => {
      const workflow = await createWorkflow(["main"]);
      await workflow.thread("main").append({ role: "user", text: "m1" });
      const opened = (await context.store.open({
        ...workflow.toJSON(),
        threads: { ...workflow.toJSON().threads, remote: FOREIGN },
      })) as WorkflowThread;
      await opened.save();
      const checkpoint = await opened.checkpoint();
      // Without the remote sub-thread the workflow forks from its end; at the checkpoint it had one.
      await opened.removeThread("remote");
      await opened.fork();
      const before = await storedIds(context.store);
      const error = await caught(opened.fork({ at: checkpoint, id: "wf-refused" }));
      expect(error).toBeInstanceOf(UnsupportedOperationError);
      expect((error as UnsupportedOperationError).type).toBe("acme.remote");
      expect(error.message).toContain('"remote"');
      expect(await storedIds(context.store)).toEqual(before);
    },
  );

  conformanceCase(
    context,
    "at(checkpoint) shows the execution state and every sub-thread as they were, read-only",
    async () => {
      const workflow = await createWorkflow(["main", "planner"]);
      await workflow.thread("main").append({ role: "user", text: "m1" });
      await workflow.thread("planner").append({ role: "assistant", text: "p1" });
      const step = await workflow.enqueue("plan");
      const early = (await context.store.get(workflow.id)) as WorkflowThread;
      const opened = (await context.store.open({
        ...workflow.toJSON(),
        threads: { ...workflow.toJSON().threads, remote: FOREIGN },
      })) as WorkflowThread;
      await opened.save();
      const checkpoint = await opened.checkpoint("planned");
      await opened.thread("main").append({ role: "user", text: "m2" });
      await opened.thread("planner").append({ role: "assistant", text: "p2" });
      await opened.start(step.id);
      await opened.addThread("late");
      await opened.removeThread("planner");
      await opened.rollback(await opened.checkpoint());

      const again = (await context.store.get(workflow.id)) as WorkflowThread;
      const past = await again.at(checkpoint);
      expect(past.checkpoint).toMatchObject({ id: checkpoint.id, label: "planned", threadId: workflow.id });
      expect(past.execution.next).toEqual([step.id]);
      expect(past.execution.current).toEqual([]);
      expect(Object.isFrozen(past.execution.steps[0])).toBe(true);
      expect(past.keys().sort()).toEqual(["main", "planner", "remote"]);
      expect(await texts(past.thread("planner"))).toEqual(["p1"]);
      expect((await past.thread("main").messages()).map((message) => message.contents[0])).toEqual([
        { type: "text", text: "m1" },
      ]);
      expect(await past.messages()).toHaveLength(1);
      expect(past.point).toEqual(checkpoint.point);
      expect(() => past.thread("late")).toThrow(ThreadNotFoundError);
      const remote = (() => {
        try {
          past.thread("remote");
        } catch (error) {
          return error as UnsupportedOperationError;
        }
      })();
      expect(remote).toBeInstanceOf(UnsupportedOperationError);
      expect(remote?.type).toBe("acme.remote");
      // A handle read before the checkpoint was taken finds it where the workflow is stored.
      expect(await texts((await early.at(checkpoint)).thread("planner"))).toEqual(["p1"]);
      expect(await caught(again.at({ ...checkpoint, id: "wcp_missing" }))).toBeInstanceOf(PointNotFoundError);
      // The present is untouched by reading the past.
      expect(again.execution.current).toEqual([step.id]);
      expect(await texts(again.thread("main"))).toEqual(["m1", "m2"]);
    },
  );
}
