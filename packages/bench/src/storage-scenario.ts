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
