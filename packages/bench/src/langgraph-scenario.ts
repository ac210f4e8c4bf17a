import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SkeinCheckpointSaver } from "@skein/langgraph";
import { openStore } from "@skein/thread-core";
import { emptyDatabase } from "./measured-database.js";

export interface LangGraphRow {
  subject: string;
  steps: number;
  seconds: number;
  bytes: number;
  bytesPerStep: number;
  /** Messages the graph's state held at the end: the number of steps when nothing was lost. */
  messages: number;
}

function directoryBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    total += entry.isDirectory() ? directoryBytes(child) : statSync(child).size;
  }
  return total;
}

/** A chat turn of one user message: the graph's one node answers nothing, so each step adds one message. */
async function run(
  saver: BaseCheckpointSaver,
  steps: number,
): Promise<{ seconds: number; messages: number }> {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", () => ({}))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: "bench" } };
  const start = process.hrtime.bigint();
  for (let step = 0; step < steps; step++) {
    await graph.invoke(
      { messages: [new HumanMessage(`message ${step}: ${"lorem ipsum ".repeat(8)}`)] },
      config,
    );
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const state = await graph.getState(config);
  return { seconds, messages: (state.values.messages as unknown[]).length };
}

/** Bytes MemorySaver keeps: its serialized checkpoints, metadata and writes. */
function memorySaverBytes(saver: MemorySaver): number {
  let bytes = 0;
  for (const namespaces of Object.values(saver.storage)) {
    for (const checkpoints of Object.values(namespaces)) {
      for (const [checkpoint, metadata] of Object.values(checkpoints))
        bytes += checkpoint.length + metadata.length;
    }
  }
  for (const writes of Object.values(saver.writes)) {
    for (const [, , value] of Object.values(writes)) bytes += value.length;
  }
  return bytes;
}

/**
 * `steps` one-message chat turns (`graph.invoke` on a MessagesAnnotation graph) with LangGraph's MemorySaver
 * and with SkeinCheckpointSaver on memory, files and Redis: the bytes each keeps and the time taken.
 */
export async function langgraphRows(redisUrl: string | undefined, steps: number): Promise<LangGraphRow[]> {
  const rows: LangGraphRow[] = [];
  const row = (subject: string, outcome: { seconds: number; messages: number }, bytes: number) =>
    rows.push({ subject, steps, bytes, bytesPerStep: bytes / steps, ...outcome });

  const memorySaver = new MemorySaver();
  row(
    "LangGraph MemorySaver (serialized checkpoints and writes)",
    await run(memorySaver, steps),
    memorySaverBytes(memorySaver),
  );

  const memory = new SkeinCheckpointSaver({ store: await openStore("memory:") });
  const inMemory = await run(memory, steps);
  const records = await (await memory.store.get(memory.skeinThreadId("bench"))).messages();
  row(
    "SkeinCheckpointSaver, memory: (JSON of its records)",
    inMemory,
    records.reduce((sum, record) => sum + JSON.stringify(record).length, 0),
  );
  await memory.close();

  const directory = mkdtempSync(join(tmpdir(), "skein-bench-langgraph-"));
  try {
    const files = await SkeinCheckpointSaver.open(`file://${directory}`);
    const onDisk = await run(files, steps);
    await files.close();
    row("SkeinCheckpointSaver, file: (bytes on disk)", onDisk, directoryBytes(directory));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }

  // A database of its own, so every key counted is the saver's.
  const database = redisUrl ? await emptyDatabase(redisUrl, 10) : undefined;
  if (database) {
    const { client } = database;
    const saver = await SkeinCheckpointSaver.open(database.url);
    const inRedis = await run(saver, steps);
    let bytes = 0;
    for await (const keys of client.scanIterator({ COUNT: 1000 })) {
      for (const key of keys) bytes += (await client.memoryUsage(key)) ?? 0;
    }
    await saver.close();
    await database.release();
    row("SkeinCheckpointSaver, redis (MEMORY USAGE)", inRedis, bytes);
  }
  return rows;
}
