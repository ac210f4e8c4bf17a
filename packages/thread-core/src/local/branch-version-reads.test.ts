import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { Message } from "../message.js";
import type { HistoryEvent } from "../thread.js";
import { LocalStore } from "./local-store.js";
import type { CommitResult, LogChange, StoredRecord } from "./log-driver.js";
import type { LogThread } from "./log-thread.js";

/** A memory driver that counts the driver calls a branch operation makes. */
class CallCountingDriver extends MemoryLogDriver {
  calls = { readSegment: 0, segment: 0, locate: 0 };
  override async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    this.calls.readSegment++;
    return super.readSegment(id, from, to);
  }
  override async segment(id: string) {
    this.calls.segment++;
    return super.segment(id);
  }
  override async locate(segmentId: string, messageId: string, count: number) {
    this.calls.locate++;
    return super.locate(segmentId, messageId, count);
  }
}

/**
 * A memory driver whose records' history events count the properties thread-core reads of them. Each stored
 * event gets one counting stand-in and each events array one copy of stand-ins, so a history that grows by an
 * event keeps the objects it had, as every driver's does.
 */
class EventReadCountingDriver extends CallCountingDriver {
  eventReads = 0;
  readonly #standIns = new WeakMap<HistoryEvent, HistoryEvent>();
  readonly #arrays = new WeakMap<HistoryEvent[], HistoryEvent[]>();

  override async read(id: string): Promise<StoredRecord | undefined> {
    return this.#counted(await super.read(id));
  }
  override async commit(id: string, change: LogChange): Promise<CommitResult> {
    const result = await super.commit(id, change);
    return { ...result, record: this.#counted(result.record) as CommitResult["record"] };
  }

  #counted(record: StoredRecord | undefined): StoredRecord | undefined {
    if (record?.kind !== "log") return record;
    let events = this.#arrays.get(record.events);
    if (!events) {
      events = record.events.map((event) => this.#standIn(event));
      this.#arrays.set(record.events, events);
    }
    return { ...record, events };
  }

  #standIn(event: HistoryEvent): HistoryEvent {
    let standIn = this.#standIns.get(event);
    if (!standIn) {
      standIn = new Proxy(event, {
        get: (target, property, receiver) => {
          this.eventReads++;
          return Reflect.get(target, property, receiver);
        },
      });
      this.#standIns.set(event, standIn);
    }
    return standIn;
  }
}

/** The driver calls of edit, regenerate and switchTo on the last answer of a chat whose answer has `versions` versions. */
async function callsAt(versions: number, options: { scope?: string } = {}) {
  const driver = new EventReadCountingDriver();
  const unscoped = new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
  const store = options.scope === undefined ? unscoped : unscoped.scope(options.scope);
  const thread = (await store.create()) as LogThread;
  await thread.append(
    Array.from({ length: 6 }, (_, index) => ({
      id: `m${index}`,
      role: index % 2 ? ("assistant" as const) : ("user" as const),
      text: `message ${index}`,
    })),
  );
  let current = "m5";
  for (let index = 1; index < versions; index++) {
    current = (await thread.edit(current, { id: `v${index}`, role: "assistant", text: `v${index}` })).id;
  }
  const counted = async (work: () => Promise<unknown>) => {
    driver.calls = { readSegment: 0, segment: 0, locate: 0 };
    driver.eventReads = 0;
    await work();
    return { calls: driver.calls, eventReads: driver.eventReads };
  };
  const previous = current;
  return {
    edit: await counted(() => thread.edit(current, { id: "edited", role: "assistant", text: "e" })),
    regenerate: await counted(() =>
      thread.regenerate("edited", { id: "again", role: "assistant", text: "r" }),
    ),
    switchTo: await counted(() => thread.switchTo(previous)),
  };
}

describe("branch operations at a position with many versions", () => {
  it("edit, regenerate and switchTo make the same driver calls after 1 and after 300 earlier edits", async () => {
    // Both answers sit in a head segment of their own (an edit made them): chains of the same shape.
    const one = await callsAt(2);
    const many = await callsAt(301);
    for (const operation of ["edit", "regenerate", "switchTo"] as const) {
      expect(many[operation].calls).toEqual(one[operation].calls);
    }
  });

  it("edit, regenerate and switchTo read only the history events they add, however many came before", async () => {
    // The versions at a spot are indexed once per history and extended by each new event: an operation at
    // a position with 300 versions reads as few events as one with a single version (and no event twice).
    const one = await callsAt(2);
    const many = await callsAt(301);
    expect(many.edit.eventReads).toBe(one.edit.eventReads);
    expect(many.regenerate.eventReads).toBe(one.regenerate.eventReads);
    expect(many.switchTo.eventReads).toBe(one.switchTo.eventReads);
    expect(one.edit.eventReads).toBeGreaterThan(0);
  });

  it("the same in one tenant's scope, whose driver maps each history's segment names", async () => {
    // The scope maps only a commit's new event, so the events a thread holds keep their identity from one
    // record to the next and the index extends instead of starting over.
    const one = await callsAt(2, { scope: "tenant" });
    const many = await callsAt(301, { scope: "tenant" });
    for (const operation of ["edit", "regenerate", "switchTo"] as const) {
      expect(many[operation].eventReads).toBe(one[operation].eventReads);
    }
  });
});
