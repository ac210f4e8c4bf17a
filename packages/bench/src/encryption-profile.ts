// Issue 41's Redis overhead, taken apart: per append and per view(last 20) on an encrypted Redis store against
// the same store in clear, the Redis commands each sends (INFO commandstats before and after) and the Node
// process's CPU (process.cpuUsage), in alternating rounds. Run under `node --cpu-prof` to see where the CPU goes.
// Each operation's time is also split at the Node side of the socket: from the call to the last socket write
// (the client writes in a setImmediate, so this is the JS work before the command plus one turn of the event
// loop), from that write to the reply's first bytes (Redis's own time per call is given apart, from
// commandstats' usec), and from the reply to the call settling. An append is split too where it enters the
// Redis driver's commit and leaves it: above it is what the layers over the store's driver (the encrypting
// one's sealing among them) cost before the command is built, below it what they cost after the reply. A sampling profiler counts the write's system
// call, in which a loaded machine often switches to the Redis server it wakes, as Node's `writeUtf8String`.
// Run: node --import tsx src/encryption-profile.ts [rounds] [plain,encrypted] [append,view]
import { randomBytes } from "node:crypto";
import { Socket } from "node:net";
import { loadavg } from "node:os";
import { openStore, type Thread, type ThreadStore } from "@skein/thread-core";
import type { EncryptionOptions } from "@skein/thread-core/driver";
import { createClient } from "redis";
import { withRedis } from "./redis-server.js";

const ROUNDS = Number(process.argv[2] ?? 5);
const SIDES = (process.argv[3] ?? "plain,encrypted").split(",") as Array<"plain" | "encrypted">;
const OPERATIONS = (process.argv[4] ?? "append,view").split(",");
const PER_ROUND = 200;
const encryption: EncryptionOptions = { keys: { bench: randomBytes(32) }, current: "bench" };

type Stats = Map<string, number>;

/** When this process last wrote to a socket, and when a reply last began to arrive after a write. */
const socketTimes = { wrote: 0, replied: 0 };
/** When the store's own driver (under any encrypting or scoping one) last began and ended a commit. */
const commitTimes = { entered: 0, left: 0 };

/** Stamps `commitTimes` around the innermost driver's `commit` of `store` (a LocalStore's chain of `inner`s). */
function watchCommits(store: ThreadStore): void {
  let driver = (store as { driver?: { inner?: unknown } }).driver as
    | { inner?: unknown; commit: (...args: unknown[]) => Promise<unknown> }
    | undefined;
  while (driver?.inner) driver = driver.inner as typeof driver;
  if (!driver) return;
  const commit = driver.commit.bind(driver);
  driver.commit = async (...args: unknown[]) => {
    commitTimes.entered = performance.now();
    try {
      return await commit(...args);
    } finally {
      commitTimes.left = performance.now();
    }
  };
}
const watched = new WeakSet<Socket>();
const write = Socket.prototype.write;
Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
  if (!watched.has(this)) {
    watched.add(this);
    this.on("data", () => {
      if (socketTimes.replied < socketTimes.wrote) socketTimes.replied = performance.now();
    });
  }
  socketTimes.wrote = performance.now();
  return write.apply(this, args);
} as Socket["write"];

async function commandStats(client: { info(section: string): Promise<string> }): Promise<Stats> {
  const text = await client.info("commandstats");
  const stats: Stats = new Map();
  for (const line of text.split("\n")) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (match) stats.set(match[1] as string, Number(match[2]));
    const usec = /^cmdstat_([^:]+):calls=\d+,usec=(\d+)/.exec(line.trim());
    if (usec) stats.set(`${usec[1]} µs`, Number(usec[2]));
  }
  return stats;
}

function difference(after: Stats, before: Stats, count: number): string {
  const parts: string[] = [];
  for (const [name, calls] of after) {
    const delta = calls - (before.get(name) ?? 0);
    if (delta <= 0 || name.startsWith("info") || name.endsWith(" µs")) continue;
    const micros = (after.get(`${name} µs`) ?? 0) - (before.get(`${name} µs`) ?? 0);
    parts.push(`${name} ${(delta / count).toFixed(2)} (${(micros / delta).toFixed(0)} µs in Redis)`);
  }
  return parts.join(", ");
}

async function seeded(store: ThreadStore): Promise<Thread> {
  const thread = await store.create();
  await thread.append(
    Array.from({ length: 200 }, (_, index) => ({ role: "user" as const, text: `seed ${index}` })),
  );
  return thread;
}

await withRedis(async (url) => {
  if (!url) throw new Error("no redis");
  const admin = createClient({ url });
  await admin.connect();
  const open = (encrypted: boolean) => {
    const target = new URL(url);
    target.searchParams.set(
      "prefix",
      `profile-${encrypted ? "enc" : "plain"}-${randomBytes(3).toString("hex")}`,
    );
    return openStore(target.href, encrypted ? { encryption } : {});
  };
  const stores = { plain: await open(false), encrypted: await open(true) };
  watchCommits(stores.plain);
  watchCommits(stores.encrypted);
  const threads = { plain: await seeded(stores.plain), encrypted: await seeded(stores.encrypted) };
  const totals: Record<
    string,
    {
      cpu: number[];
      wall: number[];
      toWrite: number[];
      toReply: number[];
      toSettle: number[];
      toDriver: number[];
      afterDriver: number[];
      commands: string;
    }
  > = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of SIDES) {
      const thread = threads[side];
      for (const [operation, run] of [
        [
          "append",
          (index: number) =>
            thread.append({ role: "assistant", text: `reply ${round}-${index} with a few words` }),
        ],
        ["view(last 20)", () => thread.view({ maxMessages: 20 })],
      ] as const) {
        if (!OPERATIONS.includes(operation.split("(")[0] as string)) continue;
        const before = await commandStats(admin);
        const cpu = process.cpuUsage();
        const start = performance.now();
        const split = { toWrite: 0, toReply: 0, toSettle: 0, toDriver: 0, afterDriver: 0 };
        for (let index = 0; index < PER_ROUND; index++) {
          const called = performance.now();
          await run(index);
          const settled = performance.now();
          split.toWrite += socketTimes.wrote - called;
          split.toReply += socketTimes.replied - socketTimes.wrote;
          split.toSettle += settled - socketTimes.replied;
          split.toDriver += commitTimes.entered - called;
          split.afterDriver += settled - commitTimes.left;
        }
        const wall = ((performance.now() - start) * 1000) / PER_ROUND;
        const used = process.cpuUsage(cpu);
        const after = await commandStats(admin);
        const name = `${side} ${operation}`;
        totals[name] = totals[name] ?? {
          cpu: [],
          wall: [],
          toWrite: [],
          toReply: [],
          toSettle: [],
          toDriver: [],
          afterDriver: [],
          commands: "",
        };
        const entry = totals[name];
        entry.cpu.push((used.user + used.system) / PER_ROUND);
        entry.wall.push(wall);
        entry.toWrite.push((split.toWrite * 1000) / PER_ROUND);
        entry.toReply.push((split.toReply * 1000) / PER_ROUND);
        entry.toSettle.push((split.toSettle * 1000) / PER_ROUND);
        entry.toDriver.push((split.toDriver * 1000) / PER_ROUND);
        entry.afterDriver.push((split.afterDriver * 1000) / PER_ROUND);
        entry.commands = difference(after, before, PER_ROUND);
      }
    }
  }
  console.log(
    `load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(", ")}`,
  );
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  for (const [name, entry] of Object.entries(totals)) {
    // Only an append commits: a view's driver split would be the last append's.
    const driverSplit = name.endsWith("append")
      ? `; call → driver's commit ${median(entry.toDriver).toFixed(0)}, its end → settled ${median(entry.afterDriver).toFixed(0)} µs`
      : "";
    console.log(
      `${name.padEnd(26)} wall ${median(entry.wall).toFixed(0).padStart(5)} µs  cpu ${median(entry.cpu).toFixed(0).padStart(5)} µs  (call → last write ${median(entry.toWrite).toFixed(0)}, → reply ${median(entry.toReply).toFixed(0)}, → settled ${median(entry.toSettle).toFixed(0)} µs${driverSplit})  commands/op: ${entry.commands}`,
    );
  }
  await stores.plain.close();
  await stores.encrypted.close();
  await admin.quit();
});
