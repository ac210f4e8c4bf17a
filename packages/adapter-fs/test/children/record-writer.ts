// A writer in its own process for the record-lock takeover tests: every change it makes rewrites the
// thread's record under a "record" lock.
// Mode "loop": prints "ready", then, until "stop" arrives on stdin, makes one change after another, each
// chosen at random (seeded by argument 6): a metadata update (key A-md-<n> added), a checkpoint (label
// A-cp-<n>), a rollback to its newest checkpoint (or the start: by id) appending A-rb-<n>, or a fork (thread
// A-fork-<n>). It prints one line per change once it settled: "ack <kind> <name>", "lost <kind> <name>"
// (LockLostError: nothing landed) or "failed <kind> <name> <error name>", then "done".
// Modes "stop-before-rename", "stop-before-event", "stop-after-event", "stop-before-delete" and
// "stop-before-create": one change (a checkpoint A-cp-0; a thread's delete; a thread's creation under
// <thread id>, metadata { by: <writer> }) that stops this process (SIGSTOP) right before its record's
// rename through the lock's staging directory (this file wraps fs.promises.rename, in this child only), or
// right before or after it writes its event line into the history file it opened (fs.writeSync on the
// `.events` file opened "r+"). Prints "stopping" first, then "ack", "lost <operation>" or
// "failed <error name>", then "done". Mode "stop-after-delete": a thread's delete that stops right after
// it removed the record and its history, before it releases the thread's segment references.
// With SKEIN_TEST_KEYS set (`keys-from-environment.ts`) the store is opened encrypted.
// Usage: record-writer.ts <directory> <thread id> <writer> <staleLockMs> <mode> [<seed>]
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { sep } from "node:path";
import { encryptionFromEnvironment } from "./keys-from-environment.js";

const [directory, threadId, writer, staleLockMs, mode, seedArgument] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string | undefined,
];

function stopHere(): void {
  process.stdout.write("stopping\n");
  process.kill(process.pid, "SIGSTOP");
}

if (mode === "stop-after-delete") {
  const rename = fs.promises.rename;
  fs.promises.rename = async (from, to) => {
    // The history file renamed away right after the record: the delete landed, its references remain.
    try {
      return await rename(from, to);
    } finally {
      if (String(from).endsWith(".events")) stopHere();
    }
  };
  syncBuiltinESMExports();
}
if (mode === "stop-before-rename" || mode === "stop-before-delete" || mode === "stop-before-create") {
  const rename = fs.promises.rename;
  let stopped = false;
  fs.promises.rename = async (from, to) => {
    // The record's rename (over records/<id>.json, or away from it for a delete), wherever from; once.
    const record = String(mode === "stop-before-delete" ? from : to);
    if (!stopped && record.includes(`${sep}records${sep}`) && record.endsWith(".json")) {
      stopped = true;
      stopHere();
    }
    return rename(from, to);
  };
  syncBuiltinESMExports();
}
if (mode === "stop-before-event" || mode === "stop-after-event") {
  let stopped = false;
  const eventsFiles = new Set<number>();
  const openSync = fs.openSync;
  // The history file opened to append events in place (`RecordFiles.appendEvents`).
  fs.openSync = ((path: fs.PathLike, flags: fs.OpenMode, mode?: fs.Mode | null) => {
    const descriptor = openSync(path, flags, mode);
    if (String(path).endsWith(".events") && flags === "r+") eventsFiles.add(descriptor);
    return descriptor;
  }) as typeof fs.openSync;
  const closeSync = fs.closeSync;
  fs.closeSync = (descriptor: number) => {
    eventsFiles.delete(descriptor);
    closeSync(descriptor);
  };
  const writeSync = fs.writeSync;
  fs.writeSync = ((descriptor: number, ...args: unknown[]) => {
    const stop = !stopped && eventsFiles.has(descriptor);
    if (stop) stopped = true;
    if (stop && mode === "stop-before-event") stopHere();
    const written = (writeSync as (...all: unknown[]) => number)(descriptor, ...args);
    if (stop && mode === "stop-after-event") stopHere();
    return written;
  }) as typeof fs.writeSync;
  syncBuiltinESMExports();
}

// Imported after the wrapping, so the store's bindings are the wrapped ones.
const { fsStore, LockLostError } = await import("../../src/index.js");
const store = fsStore({
  directory,
  staleLockMs: Number(staleLockMs),
  lockTimeoutMs: 60_000,
  encryption: encryptionFromEnvironment(),
});

function outcome(error: unknown): string {
  if (LockLostError.isInstance(error)) return `lost ${error.operation}`;
  return `failed ${error instanceof Error ? error.name : String(error)}`;
}

const KINDS = ["update", "checkpoint", "rollback", "fork"] as const;
const NAMES = { update: "md", checkpoint: "cp", rollback: "rb", fork: "fork" } as const;

if (mode === "loop") {
  let state = Number(seedArgument ?? 1);
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  let stopping = false;
  process.stdin.setEncoding("utf8").on("data", (chunk: string) => {
    if (chunk.includes("stop")) stopping = true;
  });
  let thread = await store.get(threadId);
  let newestCheckpoint: string | undefined;
  process.stdout.write("ready\n");
  for (let index = 0; !stopping; index++) {
    const kind = KINDS[Math.floor(random() * KINDS.length)] as (typeof KINDS)[number];
    const name = `${writer}-${NAMES[kind]}-${index}`;
    try {
      if (kind === "update") await thread.update({ metadata: { ...thread.metadata, [name]: index } });
      else if (kind === "checkpoint") {
        newestCheckpoint = (await thread.checkpoint(name)).id;
      } else if (kind === "rollback")
        await thread.rollback(newestCheckpoint ?? "start", {
          append: [{ id: name, role: "user", text: name }],
        });
      else await thread.fork({ id: name });
      process.stdout.write(`ack ${kind} ${name}\n`);
    } catch (error) {
      const said = LockLostError.isInstance(error)
        ? `lost ${kind} ${name}`
        : `failed ${kind} ${name} ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
      process.stdout.write(`${said}\n`);
      // Read again: the thread may have changed under this handle while this process was stopped.
      thread = await store.get(threadId);
    }
  }
} else {
  try {
    if (mode === "stop-before-delete" || mode === "stop-after-delete") await store.delete(threadId);
    else if (mode === "stop-before-create") await store.create({ id: threadId, metadata: { by: writer } });
    else await (await store.get(threadId)).checkpoint(`${writer}-cp-0`);
    process.stdout.write("ack\n");
  } catch (error) {
    process.stdout.write(`${outcome(error)}\n`);
  }
}
await store.close();
process.stdout.write("done\n");
process.stdin.destroy();
