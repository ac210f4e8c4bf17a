// A state-record writer in its own process for the state takeover tests, saving like a lease renewal.
// Mode "loop": prints "ready", then saves the state under <id> again and again, each save's ifRevision the
// revision its previous one wrote, printing "ack <revision>" per save. A save that fails prints "lost
// <revision>" (LockLostError: its lock was taken over) or "conflict <revision>" (ConcurrencyError: another
// writer saved since); the writer then waits for a line on stdin, reads the current revision and goes on.
// "stop" on stdin ends it ("done").
// Modes "stop-before-save" and "stop-before-delete": one save (or one delete) with ifRevision <revision>
// (argument 5) that stops this process (SIGSTOP) right before its rename out of or into the locks
// directory (a staged file of the lock's, or its staging directory): this file wraps fs.promises.rename,
// in this child only. Prints "stopping" first, then the
// outcome: "ack <revision>", "lost <operation>" or "failed <error name>", then "done".
// Usage: state-saver.ts <directory> <id> <writer> <staleLockMs> <mode> [<revision>]
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { sep } from "node:path";
import { ConcurrencyError } from "@skein/thread-core";

const [directory, id, writer, staleLockMs, mode, revisionArgument] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string | undefined,
];

if (mode !== "loop") {
  const rename = fs.promises.rename;
  fs.promises.rename = async (from, to) => {
    if (`${from}${to}`.includes(`${sep}locks${sep}`)) {
      process.stdout.write("stopping\n");
      process.kill(process.pid, "SIGSTOP");
    }
    return rename(from, to);
  };
  syncBuiltinESMExports();
}
// Imported after the wrapping, so the store's `rename` binding is the wrapped one.
const { FsLogDriver, LockLostError } = await import("../../src/index.js");
const driver = new FsLogDriver({ directory, staleLockMs: Number(staleLockMs), lockTimeoutMs: 60_000 });

async function currentRevision(): Promise<number> {
  return (await driver.read(id))?.revision ?? 0;
}

if (mode === "loop") {
  let stopping = false;
  let waiting: (() => void) | undefined;
  process.stdin.setEncoding("utf8").on("data", (chunk: string) => {
    if (chunk.includes("stop")) stopping = true;
    waiting?.();
  });
  let revision = await currentRevision();
  process.stdout.write("ready\n");
  for (let index = 0; !stopping; index++) {
    try {
      revision = (await driver.putState(id, { writer, index }, { ifRevision: revision })).revision;
      process.stdout.write(`ack ${revision}\n`);
    } catch (error) {
      if (LockLostError.isInstance(error)) process.stdout.write(`lost ${revision + 1}\n`);
      else if (ConcurrencyError.isInstance(error)) process.stdout.write(`conflict ${revision + 1}\n`);
      else throw error;
      await new Promise<void>((resolve) => {
        waiting = resolve;
      });
      waiting = undefined;
      revision = await currentRevision();
    }
  }
} else {
  const revision = Number(revisionArgument);
  try {
    if (mode === "stop-before-delete") {
      await driver.delete(id, { ifRevision: revision });
      process.stdout.write("ack deleted\n");
    } else {
      const saved = await driver.putState(id, { writer }, { ifRevision: revision });
      process.stdout.write(`ack ${saved.revision}\n`);
    }
  } catch (error) {
    if (LockLostError.isInstance(error)) process.stdout.write(`lost ${error.operation}\n`);
    else process.stdout.write(`failed ${error instanceof Error ? error.name : String(error)}\n`);
  }
}
await driver.close();
process.stdout.write("done\n");
process.stdin.destroy();
