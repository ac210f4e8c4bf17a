import {
  type Message,
  messageText,
  openStore,
  type Thread,
  type ThreadRunner,
  type ThreadStore,
} from "@skein/thread-core";
import { PlainStateThread } from "@skein/thread-core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createThreadService, type ThreadService } from "../src/index.js";
import { RunThread } from "../src/run-thread.js";

let store: ThreadStore;
let service: ThreadService | undefined;

beforeEach(async () => {
  store = await openStore("memory:");
});
afterEach(async () => {
  await service?.close({ abort: true });
  service = undefined;
});

/** What a run read through the thread it was given: the wrappers (run guard, lease fence) must pass it on. */
interface Reads {
  hasMessage: boolean;
  first: Message | undefined;
  missing: Message | undefined;
  before: string[];
}

describe("the thread a run is given", () => {
  it("looks messages up by id and pages backwards with { before, limit }, through the run guard and the lease fence", async () => {
    const reads: Reads[] = [];
    const runner: ThreadRunner = {
      specificationVersion: "v1",
      supports: () => true,
      async run(thread: Thread) {
        const [newest] = await thread.messages({ last: 1 });
        const [first] = await thread.messages({ limit: 1 });
        reads.push({
          hasMessage: typeof thread.message === "function",
          first: await thread.message?.(first?.id as string),
          missing: await thread.message?.("no-such-message"),
          before: (await thread.messages({ before: newest?.id as string, limit: 2 })).map(messageText),
        });
        return thread.append({ role: "assistant", text: `answer ${reads.length}` });
      },
    };
    service = createThreadService({ store, runner, pollMs: 2 });
    const { threadId } = await service.createThread();
    await service.send(threadId, "one");
    await service.send(threadId, "two");
    const stored = await (await store.get(threadId)).messages();
    expect(stored.map(messageText)).toEqual(["one", "answer 1", "two", "answer 2"]);
    expect(reads[1]).toEqual({
      hasMessage: true,
      first: stored[0],
      missing: undefined,
      before: ["one", "answer 1"],
    });
  });

  it("has no message(id) when its thread's type has none, as the thread itself", () => {
    // A state of a type registered without behaviour: a thread that cannot look messages up.
    const plain = new PlainStateThread({ $type: "acme.note", id: "note" }, store);
    expect((plain as Thread).message).toBeUndefined();
    expect(new RunThread(plain, [], "", () => {}).message).toBeUndefined();
  });
});
