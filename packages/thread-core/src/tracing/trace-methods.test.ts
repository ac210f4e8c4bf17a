import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRegistry } from "../create-registry.js";
import { LogThread } from "../local/log-thread.js";
import { type Message, type MessageInput, normalizeMessage } from "../message.js";
import { openStore } from "../store/open-store.js";
import type { Thread } from "../thread.js";
import { defineThreadType, type ThreadState, ThreadStateSchema } from "../thread-type.js";
import { traceThreadClass } from "./store-spans.js";
import { UNTRACED_METHOD } from "./trace-methods.js";

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

function spans(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

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

/** A store whose type `acme.<name>` binds each state with `bind`. */
async function storeBinding(name: string, bind: (state: ThreadState) => object) {
  const registry = createRegistry();
  registry.register(
    defineThreadType({
      type: `acme.${name}`,
      schema: ThreadStateSchema,
      bind: (state) => bind(state) as unknown as Thread,
    }),
  );
  const store = await openStore("memory:", { registry });
  const save = (id: string) =>
    store.save({ $type: `acme.${name}`, $v: 1, id, createdAt: new Date().toISOString() });
  return { store, save };
}

describe("traced methods", () => {
  it("an override calling super is one span, with the base class handed out too", async () => {
    class Audited extends ServiceThread {
      override async append(input: MessageInput | MessageInput[]): Promise<Message[]> {
        return super.append(input);
      }
    }
    class Late extends ServiceThread {
      override async append(input: MessageInput | MessageInput[]): Promise<Message[]> {
        await Promise.resolve();
        return super.append(input);
      }
    }
    const { store, save } = await storeBinding("super", (state) =>
      state.id === "base"
        ? new ServiceThread(state)
        : state.id === "late"
          ? new Late(state)
          : new Audited(state),
    );
    for (const id of ["base", "audited", "late"]) await save(id);
    const base = await store.get("base");
    const audited = await store.get("audited");
    const late = await store.get("late");
    // Both levels are wrapped: the base class's method and the override.
    expect(UNTRACED_METHOD in ServiceThread.prototype.append).toBe(true);
    expect(UNTRACED_METHOD in Audited.prototype.append).toBe(true);
    expect(UNTRACED_METHOD in Late.prototype.append).toBe(true);
    for (const thread of [base, audited, late]) await thread.append({ role: "user", text: "hi" });
    expect(spans("skein.thread.append").map((span) => span.attributes["skein.thread.id"])).toEqual([
      "base",
      "audited",
      "late",
    ]);

    // Without a context manager: still one span per call.
    context.disable();
    exporter.reset();
    for (const thread of [base, audited, late]) await thread.append({ role: "user", text: "again" });
    expect(spans("skein.thread.append")).toHaveLength(3);
    await store.close();
  });

  it("a class two copies of thread-core trace is wrapped once, one span per call", async () => {
    class Shared extends ServiceThread {}
    const { store, save } = await storeBinding("shared", (state) => new Shared(state));
    await save("shared-1");
    const thread = await store.get("shared-1");
    const wrapped = Shared.prototype.append;
    // A second copy of thread-core: its modules loaded afresh.
    vi.resetModules();
    await import("../index.js");
    const copy = (await import("./store-spans.js")) as typeof import("./store-spans.js");
    expect(copy.traceThreadClass).not.toBe(traceThreadClass);
    copy.traceThreadClass(thread);
    expect(Shared.prototype.append).toBe(wrapped);
    await thread.append({ role: "user", text: "hi" });
    expect(spans("skein.thread.append")).toHaveLength(1);
    await store.close();
  });

  it("never wraps a built-in's methods, even for a thread class extending Map", async () => {
    class MapThread extends Map<string, Message> {
      constructor(readonly state: ThreadState) {
        super();
      }
      get id(): string {
        return this.state.id;
      }
      get type(): string {
        return this.state.$type;
      }
      async append(input: MessageInput): Promise<Message[]> {
        const message = normalizeMessage(input);
        this.set(message.id, message);
        return [message];
      }
      toJSON(): ThreadState {
        return this.state;
      }
    }
    const mapDelete = Map.prototype.delete;
    const { store, save } = await storeBinding("map", (state) => new MapThread(state));
    await save("map-1");
    const thread = await store.get("map-1");
    expect(Map.prototype.delete).toBe(mapDelete);
    expect(UNTRACED_METHOD in MapThread.prototype.append).toBe(true);
    await thread.append({ role: "user", text: "hi" });
    expect(spans("skein.thread.append")).toHaveLength(1);
    await store.close();
  });

  it("never runs or replaces a getter", async () => {
    let getterRuns = 0;
    class GetterThread extends ServiceThread {
      get history(): () => Promise<unknown[]> {
        getterRuns++;
        return async () => [];
      }
    }
    const { store, save } = await storeBinding("getter", (state) => new GetterThread(state));
    await save("getter-1");
    await store.get("getter-1");
    expect(getterRuns).toBe(0);
    expect(typeof Object.getOwnPropertyDescriptor(GetterThread.prototype, "history")?.get).toBe("function");
    await store.close();
  });

  it("keeps a method's length", () => {
    const original = (LogThread.prototype.append as { [UNTRACED_METHOD]?: { length: number } })[
      UNTRACED_METHOD
    ];
    expect(original?.length).toBeGreaterThan(0);
    expect(LogThread.prototype.append.length).toBe(original?.length);
  });

  it("a sync method that throws still throws at once when traced", async () => {
    class SyncThread extends ServiceThread {
      at(): never {
        throw new RangeError("no such checkpoint");
      }
    }
    const { store, save } = await storeBinding("sync", (state) => new SyncThread(state));
    await save("sync-1");
    const thread = (await store.get("sync-1")) as unknown as SyncThread;
    expect(UNTRACED_METHOD in SyncThread.prototype.at).toBe(true);
    expect(() => thread.at()).toThrow(RangeError);
    const [at] = spans("skein.thread.at");
    expect(at?.status.code).toBe(2);
    await store.close();
  });

  it("memory stays flat when every bind makes a new class", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const prototypes: WeakRef<object>[] = [];
    const { store, save } = await storeBinding("fresh", (state) => {
      const Fresh = class extends ServiceThread {
        override async append(input: MessageInput | MessageInput[]): Promise<Message[]> {
          return super.append(input);
        }
      };
      prototypes.push(new WeakRef(Fresh.prototype));
      return new Fresh(state);
    });
    await save("fresh-1");
    for (let round = 0; round < 2000; round++) await store.get("fresh-1");
    exporter.reset();
    for (let pass = 0; pass < 3; pass++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const alive = prototypes.filter((reference) => reference.deref() !== undefined).length;
    expect(prototypes).toHaveLength(2000);
    expect(alive).toBeLessThan(100);
    await store.close();
  });
});
