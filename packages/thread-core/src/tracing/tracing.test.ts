import { context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withContextProviders } from "../context-provider.js";
import { createRegistry } from "../create-registry.js";
import { ConflictError, ThreadNotFoundError } from "../errors.js";
import { LocalStore } from "../local/local-store.js";
import type { LogThread } from "../local/log-thread.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { Message, MessageInput } from "../message.js";
import { normalizeMessage } from "../message.js";
import type { ThreadRunner } from "../runner.js";
import { openStore } from "../store/open-store.js";
import type { Thread } from "../thread.js";
import { defineThreadType, type ThreadState, ThreadStateSchema } from "../thread-type.js";
import { SPAN_ATTRIBUTES } from "./span-attributes.js";
import { tracedRunner } from "./traced-runner.js";

let exporter: InMemorySpanExporter;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});

afterEach(() => {
  trace.disable();
  context.disable();
});

function spans(name?: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => name === undefined || span.name === name);
}

function only(name: string): ReadableSpan {
  const found = spans(name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
}

/** Everything a span exporter sends, as one text. */
function exported(): string {
  return JSON.stringify(
    spans().map((span) => ({
      name: span.name,
      attributes: span.attributes,
      events: span.events,
      status: span.status,
      links: span.links,
      resource: span.resource.attributes,
    })),
  );
}

function echoRunner(text: string): ThreadRunner {
  return {
    specificationVersion: "v1",
    supports: () => true,
    run: (thread) => thread.append({ role: "assistant", text }),
  };
}

describe("OpenTelemetry spans", () => {
  it("a store's and its threads' operations each make a span with ids, type, store and counts", async () => {
    const store = await openStore("memory:");
    const thread = await store.create({ id: "support-42" });
    const [first] = await thread.append([
      { role: "user", text: "one" },
      { role: "user", text: "two" },
    ]);
    const checkpoint = await thread.checkpoint("before");
    await thread.append({ role: "user", text: "three" });
    await thread.messages({ last: 2 });
    await thread.view({ maxMessages: 1 });
    const fork = await thread.fork();
    await thread.rollback(checkpoint);
    const edited = await (thread as LogThread).edit(first?.id as string, {
      role: "user",
      text: "one again",
    });
    await (thread as LogThread).alternatives(edited.id);
    await (thread as LogThread).switchTo(first?.id as string);
    await store.get("support-42");
    await store.export("support-42");
    await store.list();
    await store.delete(fork.id);

    const support = { [SPAN_ATTRIBUTES.threadId]: "support-42", [SPAN_ATTRIBUTES.threadType]: "memory" };
    const memory = { [SPAN_ATTRIBUTES.storeScheme]: "memory", [SPAN_ATTRIBUTES.storeUrl]: "memory:" };
    expect(only("skein.store.create").attributes).toEqual({ ...memory, ...support });
    expect(spans("skein.thread.append").map((span) => span.attributes)).toEqual([
      { ...memory, ...support, [SPAN_ATTRIBUTES.messagesCount]: 2 },
      { ...memory, ...support, [SPAN_ATTRIBUTES.messagesCount]: 1 },
    ]);
    expect(only("skein.thread.messages").attributes[SPAN_ATTRIBUTES.messagesCount]).toBe(2);
    expect(only("skein.thread.view").attributes[SPAN_ATTRIBUTES.messagesCount]).toBe(1);
    expect(only("skein.thread.checkpoint").attributes).toEqual({ ...memory, ...support });
    expect(only("skein.thread.fork").attributes[SPAN_ATTRIBUTES.forkId]).toBe(fork.id);
    expect(only("skein.thread.rollback").attributes).toMatchObject(support);
    for (const name of ["edit", "alternatives", "switchTo"]) {
      expect(only(`skein.thread.${name}`).attributes).toEqual({ ...memory, ...support });
    }
    expect(only("skein.store.get").attributes).toEqual({ ...memory, ...support });
    expect(only("skein.store.export").attributes).toEqual({ ...memory, ...support });
    expect(only("skein.store.list").attributes).toEqual({ ...memory, [SPAN_ATTRIBUTES.threadsCount]: 2 });
    expect(only("skein.store.delete").attributes).toEqual({ ...memory, [SPAN_ATTRIBUTES.threadId]: fork.id });
    for (const span of spans()) expect(span.status.code, span.name).toBe(SpanStatusCode.UNSET);
    await store.close();
  });

  it("erase and sweep make a span with what they removed, counted, and neither the owner nor a thread id", async () => {
    const store = await openStore("memory:");
    for (const id of ["owned-1", "owned-2"]) {
      const thread = await store.create({ id, owner: "person-7f3a", title: "person-7f3a's" });
      await thread.append({ role: "user", text: "words" });
    }
    await store.create({ id: "expired", expiresAt: Date.now() - 1_000 });
    await store.erase({ owner: "person-7f3a" });
    await store.sweep();

    const memory = { [SPAN_ATTRIBUTES.storeScheme]: "memory", [SPAN_ATTRIBUTES.storeUrl]: "memory:" };
    expect(only("skein.store.erase").attributes).toEqual({
      ...memory,
      [SPAN_ATTRIBUTES.threadsCount]: 2,
      [SPAN_ATTRIBUTES.messagesCount]: 2,
    });
    expect(only("skein.store.sweep").attributes).toEqual({ ...memory, [SPAN_ATTRIBUTES.threadsCount]: 1 });
    // The create spans name the threads, as every thread operation's does; the erasure's names none.
    expect(exported()).not.toContain("person-7f3a");
    expect(JSON.stringify(only("skein.store.erase").attributes)).not.toContain("owned-");
    await store.close();
  });

  it("no span holds a message's text, not even the error of a conflicting re-send", async () => {
    const marker = `marker-${crypto.randomUUID()}`;
    const store = await openStore("memory:");
    const thread = await store.create({ metadata: { note: marker } });
    const [message] = await thread.append({ role: "user", text: `${marker} in a message` });
    await thread.messages();
    await thread.view();
    const conflict = await thread
      .append({ id: message?.id, role: "user", text: `${marker} changed` })
      .catch((error: unknown) => error);
    expect(ConflictError.isInstance(conflict)).toBe(true);
    await tracedRunner(echoRunner(`${marker} from the model`)).run(thread);
    const copy = await store.import(await store.export(thread.id), { id: "copy" });
    await copy.messages();
    await store.getState(thread.id);

    expect(spans("skein.thread.append").some((span) => span.status.code === SpanStatusCode.ERROR)).toBe(true);
    expect(spans().length).toBeGreaterThan(8);
    expect(exported()).not.toContain(marker);
    await store.close();
  });

  it("a store URL's password never reaches a span", async () => {
    const password = "hunter2-hunter2-hunter2";
    const store = new LocalStore({
      driver: new MemoryLogDriver(),
      registry: createRegistry(),
      url: `redis://app:${password}@cache.internal:6379/0?node=redis://:${password}@replica:6379&token=${password}`,
    });
    const thread = await store.create();
    await thread.append({ role: "user", text: "hi" });

    const append = only("skein.thread.append");
    expect(append.attributes[SPAN_ATTRIBUTES.storeScheme]).toBe("redis");
    expect(append.attributes[SPAN_ATTRIBUTES.storeUrl]).toBe("redis://app:***@cache.internal:6379/0");
    expect(exported()).not.toContain("hunter2");
  });

  it("nests under the application's active span, and a run's appends under the run", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    const runner = withContextProviders(echoRunner("answer"), []);
    const tracer = trace.getTracer("app");
    await tracer.startActiveSpan("handle request", async (root: Span) => {
      await thread.append({ role: "user", text: "question" });
      await runner.run(thread, { config: { model: "model-7" } });
      root.end();
    });

    const root = only("handle request");
    const run = only("skein.runner.run");
    const [userAppend, runAppend] = spans("skein.thread.append");
    expect(userAppend?.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(run.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(runAppend?.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(run.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(run.attributes).toEqual({
      [SPAN_ATTRIBUTES.threadId]: thread.id,
      [SPAN_ATTRIBUTES.threadType]: "memory",
      [SPAN_ATTRIBUTES.runModel]: "model-7",
      [SPAN_ATTRIBUTES.messagesCount]: 1,
    });
  });

  it("a run that runs another thread with the same runner is two spans, the second inside the first", async () => {
    const store = await openStore("memory:");
    const planner = await store.create({ id: "planner" });
    const worker = await store.create({ id: "worker" });
    const runner: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      run: async (thread) => {
        if (thread.id === "planner") await withContextProviders(runner, []).run(worker);
        return thread.append({ role: "assistant", text: "done" });
      },
    };
    await withContextProviders(runner, []).run(planner);
    const [inner, outer] = spans("skein.runner.run");
    expect(outer?.attributes[SPAN_ATTRIBUTES.threadId]).toBe("planner");
    expect(inner?.attributes[SPAN_ATTRIBUTES.threadId]).toBe("worker");
    expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
  });

  it("a run with context providers is one span around the runner's call, its appends inside", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    await thread.append({ role: "user", text: "question" });
    const runner = withContextProviders(echoRunner("answer"), [
      { name: "notes", invoking: () => ({ messages: [{ role: "system", text: "a note" }] }) },
    ]);
    await runner.run(thread, { config: { model: "model-7" } });
    const run = only("skein.runner.run");
    expect(run.attributes).toEqual({
      [SPAN_ATTRIBUTES.threadId]: thread.id,
      [SPAN_ATTRIBUTES.threadType]: "memory",
      [SPAN_ATTRIBUTES.runModel]: "model-7",
      [SPAN_ATTRIBUTES.messagesCount]: 1,
    });
    const answer = spans("skein.thread.append").at(-1);
    expect(answer?.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
  });

  it("a run through tracedRunner and withContextProviders is one span, not two", async () => {
    const store = await openStore("memory:");
    const thread = await store.create();
    await withContextProviders(tracedRunner(echoRunner("answer")), []).run(thread);
    expect(spans("skein.runner.run")).toHaveLength(1);
  });

  it("threads an adapter binds get thread spans too, once per call even through super", async () => {
    /** A thread whose history a service would keep: here, an array. */
    class ServiceThread {
      readonly kept: Message[] = [];
      constructor(readonly state: ThreadState) {}
      get id(): string {
        return this.state.id;
      }
      get type(): string {
        return this.state.$type;
      }
      async append(input: MessageInput | MessageInput[]): Promise<Message[]> {
        const added = (Array.isArray(input) ? input : [input]).map((item) => normalizeMessage(item));
        this.kept.push(...added);
        return added;
      }
      toJSON(): ThreadState {
        return this.state;
      }
    }
    class AuditedServiceThread extends ServiceThread {
      override async append(input: MessageInput | MessageInput[]): Promise<Message[]> {
        return super.append(input);
      }
    }
    const registry = createRegistry();
    registry.register(
      defineThreadType({
        type: "acme.service",
        schema: ThreadStateSchema,
        bind: (state) => new AuditedServiceThread(state) as unknown as Thread,
      }),
    );
    const store = await openStore("memory:", { registry });
    await store.save({ $type: "acme.service", $v: 1, id: "remote-1", createdAt: new Date().toISOString() });
    const thread = await store.get("remote-1");
    await thread.append({ role: "user", text: "hi" });
    await thread.append({ role: "user", text: "again" });

    expect(spans("skein.thread.append").map((span) => span.attributes)).toEqual([
      {
        [SPAN_ATTRIBUTES.threadId]: "remote-1",
        [SPAN_ATTRIBUTES.threadType]: "acme.service",
        [SPAN_ATTRIBUTES.messagesCount]: 1,
      },
      {
        [SPAN_ATTRIBUTES.threadId]: "remote-1",
        [SPAN_ATTRIBUTES.threadType]: "acme.service",
        [SPAN_ATTRIBUTES.messagesCount]: 1,
      },
    ]);
  });

  it("a workflow's append is a span around its main sub-thread's", async () => {
    const store = await openStore("memory:");
    const workflow = await store.create("workflow", {});
    await workflow.append({ role: "user", text: "hi" });
    const [inner, outer] = spans("skein.thread.append");
    expect(outer?.attributes[SPAN_ATTRIBUTES.threadType]).toBe("workflow");
    expect(inner?.attributes[SPAN_ATTRIBUTES.threadType]).toBe("memory");
    expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
  });

  it("a failure sets status ERROR and records the exception with credentials scrubbed", async () => {
    const store = await openStore("memory:");
    const missing = await store.get("no-such-thread").catch((error: unknown) => error);
    expect(ThreadNotFoundError.isInstance(missing)).toBe(true);
    const get = only("skein.store.get");
    expect(get.status.code).toBe(SpanStatusCode.ERROR);
    expect(get.status.message).toBe((missing as Error).message);
    expect(get.attributes["error.type"]).toBe((missing as Error).name);
    const [event] = get.events;
    expect(event?.name).toBe("exception");
    expect(event?.attributes?.["exception.message"]).toBe((missing as Error).message);

    const thread = await store.create();
    const key = "sk-proj-a1b2c3d4e5f6g7h8i9j0";
    const failing: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      run: async () => {
        throw new Error(`the service refused the key ${key}`);
      },
    };
    await expect(withContextProviders(failing, []).run(thread)).rejects.toThrow(key);
    const run = only("skein.runner.run");
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.status.message).toBe("the service refused the key sk-***");
    expect(run.events[0]?.attributes?.["exception.message"]).toBe("the service refused the key sk-***");
    expect(exported()).not.toContain("a1b2c3d4");
  });
});
