import { createHash, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Role, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";
import {
  InvalidThreadStateError,
  messageText,
  openStore,
  SkeinError,
  ThreadNotFoundError,
  type ThreadStore,
} from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  A2aTaskStoreError,
  A2aTaskThread,
  type A2aThread,
  a2aAdapter,
  skeinTaskStore,
} from "../src/index.js";
import { startAgentProcess } from "./agent-process.js";
import { type AgentServer, startAgentServer } from "./agent-server.js";

describe("skeinTaskStore in a server", () => {
  let server: AgentServer;
  let tasks: ThreadStore;
  let threads: ThreadStore;

  beforeAll(async () => {
    tasks = await openStore("memory:", { adapters: [a2aAdapter()] });
    threads = await openStore("memory:", { adapters: [a2aAdapter()] });
    server = await startAgentServer({ taskStore: skeinTaskStore(tasks) });
  });
  afterAll(async () => {
    await server.close();
    await Promise.all([tasks.close(), threads.close()]);
  });

  it("keeps the server's tasks as a2a.task states, readable as threads", async () => {
    const thread = (await threads.create("a2a", { agentUrl: server.agentUrl("ask") })) as A2aThread;
    await thread.append({ role: "user", text: "hi" });
    await thread.append({ role: "user", text: "Lin" });

    const owner = tasks.scope("a2a-tasks").scope("owner:unknown");
    const { items } = await owner.list();
    expect(items).toContainEqual(expect.objectContaining({ id: thread.taskId, type: "a2a.task" }));
    const stored = await owner.get(thread.taskId as string);
    expect(stored).toBeInstanceOf(A2aTaskThread);
    expect(await stored.messages()).toEqual(await thread.messages());
    expect((stored as A2aTaskThread).task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(stored.append({ role: "user", text: "no" })).rejects.toMatchObject({
      name: "UnsupportedOperationError",
    });
    expect(await tasks.list()).toEqual({ items: [] }); // tasks stay out of the store's own listing
  });

  it("lists a context's tasks newest first, in pages, through the protocol", async () => {
    const thread = (await threads.create("a2a", { agentUrl: server.agentUrl("echo") })) as A2aThread;
    for (const text of ["1", "2", "3"]) await thread.append({ role: "user", text });
    const client = await new ClientFactory().createFromUrl(`${server.agentUrl("echo")}/`);
    const request = {
      tenant: "",
      contextId: thread.contextId,
      status: 0,
      pageToken: "",
      statusTimestampAfter: undefined,
    };
    const first = await client.listTasks({ ...request, pageSize: 2 });
    expect(first.totalSize).toBe(3);
    expect(first.tasks.map((task) => task.id)).toEqual(
      [...(thread.toJSON().conversation ?? [])]
        .reverse()
        .slice(0, 2)
        .map((entry) => (entry as { taskId: string }).taskId),
    );
    const second = await client.listTasks({ ...request, pageSize: 2, pageToken: first.nextPageToken });
    expect(second.tasks).toHaveLength(1);
    expect(second.nextPageToken).toBe("");
    expect(first.tasks[0]?.artifacts).toEqual([]); // unless includeArtifacts
  });

  it("takes a store's refusal in the not-found or unreadable family as such, whatever its class", async () => {
    // A store of another package answers with its own subclasses, under other class names.
    class GoneFromBackendError extends ThreadNotFoundError {
      static override readonly marker: string = "skein.test.GoneFromBackendError";
    }
    class GarbledRowError extends InvalidThreadStateError {
      static override readonly marker: string = "skein.test.GarbledRowError";
    }
    const refusing = (store: ThreadStore, error: Error): ThreadStore =>
      new Proxy(store, {
        get(target, property) {
          if (property === "get") return () => Promise.reject(error);
          if (property === "scope") return (name: string) => refusing(target.scope(name), error);
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const alice = new ServerCallContext({ tenant: "t1", user: user("alice") });
    const gone = skeinTaskStore(refusing(tasks, new GoneFromBackendError("task-1")));
    expect(await gone.load("task-1", alice)).toBeUndefined();
    const garbled = skeinTaskStore(refusing(tasks, new GarbledRowError("bad row")));
    await expect(garbled.load("task-1", alice)).rejects.toBeInstanceOf(A2aTaskStoreError);
  });

  it("separates tenants and owners", async () => {
    const store = skeinTaskStore(tasks);
    const alice = new ServerCallContext({ tenant: "t1", user: user("alice") });
    const bob = new ServerCallContext({ tenant: "t1", user: user("bob") });
    const otherTenant = new ServerCallContext({ tenant: "t2", user: user("alice") });
    await store.save(sampleTask("shared-id"), alice);
    expect((await store.load("shared-id", alice))?.id).toBe("shared-id");
    expect(await store.load("shared-id", bob)).toBeUndefined();
    expect(await store.load("shared-id", otherTenant)).toBeUndefined();
    expect(await store.load("x".repeat(300), alice)).toBeUndefined();
    const listed = await store.list(listRequest(), alice);
    expect(listed.tasks.map((task) => task.id)).toEqual(["shared-id"]);
    expect((await store.list(listRequest(), bob)).tasks).toEqual([]);
  });
});

describe("skeinTaskStore refuses what is not a task, and keeps owners apart", () => {
  let tasks: ThreadStore;
  beforeAll(async () => {
    tasks = await openStore("memory:", { adapters: [a2aAdapter()] });
  });
  afterAll(() => tasks.close());

  it("save() of anything that is not a Task is an A2aTaskStoreError, and saves nothing", async () => {
    const store = skeinTaskStore(tasks);
    const context = new ServerCallContext({ user: user("alice") });
    const notTasks: unknown[] = [
      null,
      undefined,
      5,
      "task-1",
      [],
      {},
      { id: 5 },
      { id: "" },
      { id: "t-1", history: "not a list" },
      { id: "t-2", history: [null] },
    ];
    for (const input of notTasks) {
      const error = await store.save(input as Task, context).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(A2aTaskStoreError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/^\[adapter-a2a\] Task "[^"]*": /);
    }
    // Valid as far as the SDK can tell, but not JSON: thread-core's check of every saved state refuses it.
    await expect(
      store.save({ ...sampleTask("t-3"), metadata: { count: 1n } } as unknown as Task, context),
    ).rejects.toSatisfy((error) => SkeinError.isInstance(error));
    expect((await store.list(listRequest(), context)).tasks).toEqual([]);
  });

  it("owners and tenants that differ only in lone surrogates have scopes of their own", async () => {
    const store = skeinTaskStore(tasks);
    const high = new ServerCallContext({ tenant: "t", user: user("a\ud800") });
    const low = new ServerCallContext({ tenant: "t", user: user("a\udc00") });
    const replaced = new ServerCallContext({ tenant: "t", user: user("a\ufffd\u0001") });
    await store.save(sampleTask("surrogate-task"), high);
    expect((await store.load("surrogate-task", high))?.id).toBe("surrogate-task");
    expect(await store.load("surrogate-task", low)).toBeUndefined();
    expect(await store.load("surrogate-task", replaced)).toBeUndefined();
    expect((await store.list(listRequest(), low)).tasks).toEqual([]);

    const tenantHigh = new ServerCallContext({ tenant: "t\udbff", user: user("bob") });
    const tenantLow = new ServerCallContext({ tenant: "t\udfff", user: user("bob") });
    await store.save(sampleTask("tenant-task"), tenantHigh);
    expect(await store.load("tenant-task", tenantLow)).toBeUndefined();
    expect((await store.load("tenant-task", tenantHigh))?.id).toBe("tenant-task");
  });

  it("a name that is no id keeps the scope earlier versions gave it, so its tasks are found again", async () => {
    const owner = `${"o".repeat(300)}\u0001é`;
    await skeinTaskStore(tasks).save(sampleTask("kept"), new ServerCallContext({ user: user(owner) }));
    const hash = createHash("sha256").update(owner).digest("base64url");
    const stored = await tasks.scope("a2a-tasks").scope(`owner#${hash}`).get("kept");
    expect(stored).toBeInstanceOf(A2aTaskThread);
  });
});

describe("an A2A server process restarted on skeinTaskStore", () => {
  const redisUrl = inject("redisUrl");

  it("continues its task after a crash, with tasks in files", async () => {
    const directory = await mkdtemp(join(tmpdir(), "skein-a2a-tasks-"));
    try {
      await continuesAfterRestart(`file:${directory}`);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it.skipIf(!redisUrl)(
    "continues its task after a crash, with tasks in Redis (needs REDIS_URL or redis-server)",
    async () => {
      await continuesAfterRestart(redisUrl);
    },
  );
});

async function continuesAfterRestart(storeUrl: string): Promise<void> {
  const threads = await openStore("memory:", { adapters: [a2aAdapter()] });
  // A scope of its own, so runs that share one Redis never meet.
  const scope = `a2a-tasks-${randomUUID()}`;
  let agent = await startAgentProcess(storeUrl, { scope });
  try {
    const thread = (await threads.create("a2a", {
      agentUrl: `http://127.0.0.1:${agent.port}/ask`,
    })) as A2aThread;
    await thread.append({ role: "user", text: "hi" });
    expect(thread.taskState).toBe("input-required");

    await agent.kill();
    agent = await startAgentProcess(storeUrl, { scope, port: agent.port });

    const reply = await thread.append({ role: "user", text: "Ada" });
    expect(reply.map(messageText)).toEqual(["Ada", "Hello, Ada!"]);
    expect(thread.taskState).toBe("completed");
    expect((await thread.messages()).map(messageText)).toEqual([
      "hi",
      "What is your name?",
      "Ada",
      "Hello, Ada!",
    ]);
  } finally {
    await agent.kill();
    await threads.close();
  }
}

function user(userName: string) {
  return { isAuthenticated: true, userName };
}

function sampleTask(id: string): Task {
  return {
    id,
    contextId: "ctx",
    status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [
      {
        messageId: "m1",
        contextId: "ctx",
        taskId: id,
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: "text", value: "hi" },
            mediaType: "text/plain",
            filename: "",
            metadata: undefined,
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
    ],
    metadata: undefined,
  };
}

function listRequest(): Parameters<TaskStore["list"]>[0] {
  return { tenant: "", contextId: "", status: 0, pageToken: "", statusTimestampAfter: undefined };
}
