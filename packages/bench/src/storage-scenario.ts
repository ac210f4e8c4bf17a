import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { openStore } from "@skein/thread-core";
import { emptyDatabase } from "./measured-database.js";
import { rawRecord, workloadMessages } from "./workload.js";

export interface StorageRow {
  subject: string;
  bytes: number;
  perMessage: number;
  ratio: number;
}

function directoryBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    total += entry.isDirectory() ? directoryBytes(child) : statSync(child).size;
  }
  return total;
}

/** Bytes a 1,000-message thread takes on disk and in Redis, beside the raw JSON of its messages. */
export async function storageRows(redisUrl: string | undefined, count = 1000): Promise<StorageRow[]> {
  const messages = workloadMessages(count);
  const raw = messages.reduce(
    (sum, message, index) => sum + JSON.stringify(rawRecord(message, index)).length,
    0,
  );
  const rows: StorageRow[] = [
    { subject: "raw JSON of the messages", bytes: raw, perMessage: raw / count, ratio: 1 },
  ];
  const row = (subject: string, bytes: number) => ({
    subject,
    bytes,
    perMessage: bytes / count,
    ratio: bytes / raw,
  });

  const directory = mkdtempSync(join(tmpdir(), "skein-bench-"));
  try {
    const store = await openStore(`file://${directory}`);
    const thread = await store.create();
    for (const message of messages) await thread.append(message as { role: "user"; text: string });
    await store.close();
    rows.push(row("skein fs store, on disk (one append each)", directoryBytes(directory)));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }

  // A database of its own, so every key counted is the thread's.
  const database = redisUrl ? await emptyDatabase(redisUrl, 9) : undefined;
  if (database) {
    const { client } = database;
    const store = await openStore(database.url);
    const thread = await store.create();
    for (const message of messages) await thread.append(message as { role: "user"; text: string });
    let bytes = 0;
    for await (const keys of client.scanIterator({ COUNT: 1000 })) {
      for (const key of keys) bytes += (await client.memoryUsage(key)) ?? 0;
    }
    await store.close();
    await database.release();
    rows.push(row("skein redis store, MEMORY USAGE", bytes));
  }
  return rows;
}

/**
 * The memory `build` leaves reachable, after full collections before and after (needs node --expose-gc): the
 * V8 heap, and the ArrayBuffer contents V8 keeps outside it (a typed array's bytes, as an index may use).
 */
async function retainedHeap(build: () => Promise<unknown>): Promise<number | undefined> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return undefined;
  const used = () => {
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  gc();
  gc();
  const before = used();
  let kept: unknown = await build();
  gc();
  gc();
  const after = used();
  // Read after the measurement, so what `build` made stays reachable until then.
  if (kept === undefined) throw new Error("nothing was kept");
  kept = undefined;
  return after - before;
}

/**
 * Heap bytes a memory store holds per message, beside the raw JSON bytes and beside the same messages kept
 * as parsed objects in a plain array (the floor under any in-process store). Inputs are copied inside the
 * measurement, so the store cannot share strings made before it; 10,000 messages, so what the store and
 * the thread cost once spreads thin. Empty without --expose-gc.
 */
export async function heapRows(count = 10_000): Promise<StorageRow[]> {
  const messages = workloadMessages(count);
  const records = messages.map((message, index) => JSON.stringify(rawRecord(message, index)));
  const raw = records.reduce((sum, record) => sum + record.length, 0);
  const row = (subject: string, bytes: number) => ({
    subject,
    bytes,
    perMessage: bytes / count,
    ratio: bytes / raw,
  });
  // structuredClone makes fresh, flat strings: a parsed string may be a slice keeping its whole source alive.
  const parsed = await retainedHeap(async () => structuredClone(records.map((record) => JSON.parse(record))));
  const store = await retainedHeap(async () => {
    const memory = await openStore("memory:");
    const thread = await memory.create();
    const inputs = structuredClone(messages) as Array<{ role: "user"; text: string }>;
    for (const message of inputs) await thread.append(message);
    return memory;
  });
  if (parsed === undefined || store === undefined) return [];
  return [
    row(`raw JSON of ${count.toLocaleString("en")} messages`, raw),
    row("the messages parsed into a plain array, heap", parsed),
    row("skein memory store, heap", store),
  ];
}

/** What 1,000 one-message updates leave behind: skein's JSON beside LangGraph's checkpoints. */
export async function growthRows(count = 1000): Promise<StorageRow[]> {
  const messages = workloadMessages(count);
  const thread = await (await openStore("memory:")).create();
  for (const message of messages) await thread.append(message as { role: "user"; text: string });
  const skein = JSON.stringify(thread).length;

  const saver = new MemorySaver();
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", () => ({ messages: [] }))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: "growth" } };
  for (const message of messages)
    await graph.updateState(config, { messages: [new HumanMessage(message.text)] });
  let langgraph = 0;
  for await (const tuple of saver.list(config)) {
    langgraph += JSON.stringify(tuple.checkpoint).length + JSON.stringify(tuple.metadata ?? {}).length;
  }
  return [
    {
      subject: "skein memory thread JSON (whole history)",
      bytes: skein,
      perMessage: skein / count,
      ratio: 1,
    },
    {
      subject: "LangGraph MemorySaver checkpoints",
      bytes: langgraph,
      perMessage: langgraph / count,
      ratio: langgraph / skein,
    },
  ];
}
