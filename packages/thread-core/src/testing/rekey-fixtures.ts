import type { EncryptionOptions } from "../spec/encryption-options.js";
import type { RekeyOptions, RekeyReport } from "../spec/rekey.js";
import type { Thread } from "../spec/thread.js";
import type { ThreadStore } from "../spec/thread-store.js";
import { expect } from "./expect.js";

// What the rekey cases share: key ids, a store opened and closed around some work, and threads that hold
// every kind of sealed unit.

/** The same fresh, empty backend each time within a case, opened with `encryption` (unencrypted without it). */
export type OpenRekeyStore = (encryption?: EncryptionOptions) => Promise<ThreadStore>;

/** One named case of the rekey suite. */
export type RekeyCase = (open: OpenRekeyStore) => Promise<void>;

export const OLD = "2026-06";
export const NEW = "2026-12";

/** Opens a store, runs `work` with it and closes it, whatever happens. */
export async function withStore<Result>(
  open: OpenRekeyStore,
  encryption: EncryptionOptions | undefined,
  work: (store: ThreadStore) => Promise<Result>,
): Promise<Result> {
  const store = await open(encryption);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** `store.rekey`, checked to be there (a store built against an older contract may lack it). */
export function rekey(store: ThreadStore, options?: RekeyOptions): Promise<RekeyReport> {
  expect(typeof store.rekey, "store.rekey").toBe("function");
  return store.rekey(options);
}

/** What a thread reads as, through every path that opens a sealed unit. */
export async function readAll(thread: Thread): Promise<unknown> {
  const history = await thread.history();
  const checkpoints = history.flatMap((event) => (event.kind === "checkpoint" ? [event.checkpoint] : []));
  return {
    messages: await thread.messages(),
    state: JSON.parse(JSON.stringify(thread)),
    labels: checkpoints.map((checkpoint) => checkpoint.label ?? null),
    past: await Promise.all(checkpoints.map(async (checkpoint) => (await thread.at(checkpoint)).messages())),
  };
}

/** Threads with every kind of sealed unit: messages over several segments, metadata, context, labels. */
export async function writeThreads(store: ThreadStore): Promise<string[]> {
  const main = await store.create({
    id: "rekey-main",
    metadata: { topic: "rotation" },
    owner: "u-1",
    title: "Rotation",
  });
  await main.append([
    { id: "m1", role: "system", text: "be brief" },
    { id: "m2", role: "user", text: "first" },
    { id: "m3", role: "assistant", text: "second" },
  ]);
  const checkpoint = await main.checkpoint("before the fork");
  const fork = await main.fork({ at: "m2" });
  await fork.append({ id: "f1", role: "user", text: "forked" });
  await main.append({ id: "m4", role: "user", text: "third" });
  await main.rollback(checkpoint);
  await main.append({ id: "m5", role: "user", text: "after the rollback" });
  const long = await store.create({ id: "rekey-long" });
  await long.append(
    Array.from({ length: 25 }, (_, index) => ({ id: `l${index}`, role: "user" as const, text: `n${index}` })),
  );
  return [main.id, fork.id, long.id];
}

export async function readThreads(store: ThreadStore, ids: string[]): Promise<unknown[]> {
  return Promise.all(ids.map(async (id) => readAll(await store.get(id))));
}
