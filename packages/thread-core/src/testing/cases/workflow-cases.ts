import { expect } from "vitest";
import {
  ConcurrencyError,
  ThreadExistsError,
  ThreadNotFoundError,
  UnknownThreadTypeError,
} from "../../errors.js";
import type { Thread } from "../../thread.js";
import type { WorkflowRollbackReport } from "../../workflow/workflow-checkpoints.js";
import type { WorkflowThread } from "../../workflow/workflow-thread.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

const texts = async (thread: Thread) =>
  (await thread.messages()).map((message) => (message.contents[0] as { text?: string }).text);

const FOREIGN = {
  $type: "acme.remote",
  id: "remote-1",
  conversationId: "conv_9",
  nested: { keep: [1, "two"] },
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
}
