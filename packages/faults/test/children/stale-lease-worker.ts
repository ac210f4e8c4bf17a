// A thread-service instance that is frozen past its lease while its runner writes. It sends "A-question"
// to the thread, and its runner writes:
//   mode "stop-in-append": starts the append of "A-late-part"; the lease fence checks the lease (fresh) and
//     hands the write to the store's thread, whose `append` (wrapped here) prints "frozen" and stops the
//     process with SIGSTOP on entry: past the lease check, before the store has seen the write;
//   mode "stream": prints "streaming", then appends "A-part-<i>" one after another until a write is
//     refused; the parent sends SIGSTOP at a moment of its choosing;
//   mode "wait-on-lock" (fs): prints "ready-to-write" and waits for a line on stdin (the parent takes the
//     thread's lock meanwhile), starts the append of "A-late-part", which passes the lease check and waits
//     for the lock, and prints "appending" 100 ms later; the parent sends SIGSTOP;
//   modes "wait-on-lock-checkpoint" and "wait-on-lock-fork" (fs): the same with a checkpoint labelled
//     "A-late", or a fork of the thread with the id "<thread id>-A-fork", in place of the append.
//   modes "stop-in-checkpoint" and "stop-in-rollback" (fs): a checkpoint labelled "A-late", or a rollback
//     to the start appending "A-late-part", that stops this process (SIGSTOP) right before the store
//     renames the thread's record (holding the thread's "record" lock, past every lease check): this file
//     wraps fs.promises.rename, in this child only; prints "frozen" first.
// The parent lets another instance take the lease and answer, then sends SIGCONT. The child prints one
// JSON line, { append, send }: what became of the runner's last write and of the send. Then it exits.
// A send that loses the child's own lease before its runner starts is made again (see below); one that
// fails otherwise is written to stderr and reported, the append as "not started".
// Usage: stale-lease-worker.ts <store url> <thread id> <lease ms> <mode>
import { once } from "node:events";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { openStore, SkeinError, type Thread, type ThreadRunner, type ThreadStore } from "@skein/thread-core";
import { createThreadService, LeaseLostError } from "@skein/thread-service";
// Not exported: the fs store's file naming, read from its source as the faults tests do.
import { encodeName } from "../../../adapter-fs/src/records/file-names.js";

const [url, threadId, leaseMs, mode] = process.argv.slice(2) as [string, string, string, string];
/** The runner's write that mode "stop-in-append" freezes in. */
const LATE_PART = "A-late-part";
/** A bound on the stream, so a runner that is never refused still ends. */
const MAX_PARTS = 5000;

/**
 * How many times the send is made while it loses this instance's own lease before the runner starts (see
 * the send below); past it, the child reports and exits.
 */
const MAX_SENDS = 10;

/** What a write or the send came to: landed, refused with a typed error, or never made (no run started). */
interface Outcome {
  status: "landed" | "refused" | "not started";
  error?: string;
  leaseLost?: boolean;
}

function refused(error: unknown): Outcome {
  return {
    status: "refused",
    error: SkeinError.isInstance(error) ? error.name : String(error),
    leaseLost: LeaseLostError.isInstance(error),
  };
}

/** Armed by the runner: the next rename onto the thread's record stops this process first. */
let stopBeforeRecordRename = false;
if (mode === "stop-in-checkpoint" || mode === "stop-in-rollback") {
  const rename = fs.promises.rename;
  fs.promises.rename = async (from, to) => {
    if (stopBeforeRecordRename && String(to).endsWith(`${sep}records${sep}${encodeName(threadId)}.json`)) {
      stopBeforeRecordRename = false;
      process.stdout.write("frozen\n");
      process.kill(process.pid, "SIGSTOP");
    }
    return rename(from, to);
  };
  // The store's `rename` bindings (imported from node:fs/promises) are live: they now see the wrapper.
  syncBuiltinESMExports();
}

/** Set when the runner starts: from then on, the run's writes are what the parent looks at. */
let runnerStarted = false;
let noteAppend!: (outcome: Outcome) => void;
const appendOutcome = new Promise<Outcome>((resolve) => {
  noteAppend = resolve;
});

const runner: ThreadRunner = {
  specificationVersion: "v1",
  supports: () => true,
  async run(thread) {
    runnerStarted = true;
    try {
      if (mode === "stop-in-append") {
        // Stopped inside the store's append (see `stopInLatePart`), not here: the fence's lease check runs
        // after this call returns (in its turn), and a stop here would leave that check to refuse the write.
        const messages = await thread.append({ role: "assistant", text: LATE_PART });
        noteAppend({ status: "landed" });
        return messages;
      }
      if (mode === "wait-on-lock") {
        process.stdout.write("ready-to-write\n");
        await once(process.stdin, "data");
        const writing = thread.append({ role: "assistant", text: "A-late-part" });
        await sleep(100);
        process.stdout.write("appending\n");
        const messages = await writing;
        noteAppend({ status: "landed" });
        return messages;
      }
      if (mode === "stop-in-checkpoint" || mode === "stop-in-rollback") {
        stopBeforeRecordRename = true;
        if (mode === "stop-in-checkpoint") await thread.checkpoint("A-late");
        else await thread.rollback("start", { append: [{ role: "assistant", text: "A-late-part" }] });
        noteAppend({ status: "landed" });
        return [];
      }
      if (mode === "wait-on-lock-checkpoint" || mode === "wait-on-lock-fork") {
        process.stdout.write("ready-to-write\n");
        await once(process.stdin, "data");
        const writing =
          mode === "wait-on-lock-checkpoint"
            ? thread.checkpoint("A-late")
            : thread.fork({ id: `${threadId}-A-fork` });
        await sleep(100);
        process.stdout.write("appending\n");
        await writing;
        noteAppend({ status: "landed" });
        return [];
      }
      process.stdout.write("streaming\n");
      for (let part = 0; part < MAX_PARTS; part++) {
        await thread.append({ role: "assistant", text: `A-part-${part}` });
      }
      noteAppend({ status: "landed" });
      return [];
    } catch (error) {
      noteAppend(refused(error));
      throw error;
    }
  },
};

/**
 * The store, with the threads it returns wrapped so that the append of LATE_PART stops the process on entry,
 * before it reaches the store: the fence has checked the lease and calls this append with its `ifRevision`.
 */
function stopInLatePart(store: ThreadStore): ThreadStore {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== "get") return typeof value === "function" ? value.bind(target) : value;
      return async (id: string) => {
        const thread: Thread = await value.call(target, id);
        const append = thread.append.bind(thread);
        thread.append = ((input, options) => {
          const inputs = Array.isArray(input) ? input : [input];
          if (inputs.some((message) => "text" in message && message.text === LATE_PART)) {
            process.stdout.write("frozen\n");
            process.kill(process.pid, "SIGSTOP");
          }
          return append(input, options);
        }) as typeof append;
        return thread;
      };
    },
  });
}

const opened = await openStore(url);
const store = mode === "stop-in-append" ? stopInLatePart(opened) : opened;
const service = createThreadService({
  store,
  runner,
  leaseMs: Number(leaseMs),
  instanceId: `stale-${process.pid}`,
});
/** Whether the thread already holds this child's question (a send that lost its lease after appending it). */
async function asked(): Promise<boolean> {
  const thread = await opened.get(threadId);
  return (await thread.messages()).some((message) =>
    message.contents.some((content) => "text" in content && content.text === "A-question"),
  );
}

let send: Outcome | undefined;
for (let attempt = 1; send === undefined; attempt++) {
  try {
    await service.send(threadId, "A-question");
    send = { status: "landed" };
  } catch (error) {
    process.stderr.write(`stale-lease-worker: send ${attempt} failed: ${String(error)}\n`);
    // Taking the lease and starting the run must fit in LEASE_MS of this child's own clock; on a loaded
    // machine they may not, and the send fails with LeaseLostError before the runner starts. No other
    // instance runs yet (the parent waits for this child's runner), so the lease is still in this child's
    // name and sending again takes it again. Only while the question is not in the thread: once it is, a
    // second send would ask twice.
    if (LeaseLostError.isInstance(error) && !runnerStarted && attempt < MAX_SENDS && !(await asked())) {
      continue;
    }
    send = refused(error);
    // The runner never started, so it will never settle its write: say so rather than wait for it forever.
    if (!runnerStarted) noteAppend({ status: "not started" });
  }
}
const append = await appendOutcome;
await service.whenIdle();
process.stdout.write(`${JSON.stringify({ append, send })}\n`);
await service.close();
await opened.close();
process.stdin.destroy();
