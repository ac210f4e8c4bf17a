// A lock creator in its own process for unlinked-lock.test.ts: it takes the lock at <lockPath> (a
// "segment" lock, through LockFiles) and stops itself (SIGSTOP) at the moment between making the lock's
// file and filling it, whatever way LockFiles does that: right before the first write into a file opened at
// the lock path itself, or right before a link onto the lock path. This file wraps those fs functions, in
// this child only. Prints "stopping" first; once it holds the lock, "held"; after letting go, "released".
// Usage: lock-creator.ts <lockPath>
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const [lockPath] = process.argv.slice(2) as [string];
const lockDescriptors = new Set<number>();
let stopped = false;
function stopOnce(): void {
  if (stopped) return;
  stopped = true;
  process.stdout.write("stopping\n");
  process.kill(process.pid, "SIGSTOP");
}

const { openSync, writeSync, linkSync } = fs;
fs.openSync = ((
  path: fs.PathLike,
  ...rest: Parameters<typeof fs.openSync> extends [unknown, ...infer R] ? R : never
) => {
  const descriptor = openSync(path, ...rest);
  if (path === lockPath) lockDescriptors.add(descriptor);
  return descriptor;
}) as typeof fs.openSync;
fs.writeSync = ((descriptor: number, ...rest: unknown[]) => {
  if (lockDescriptors.has(descriptor)) stopOnce();
  return (writeSync as (...all: unknown[]) => number)(descriptor, ...rest);
}) as typeof fs.writeSync;
fs.linkSync = (existing: fs.PathLike, target: fs.PathLike) => {
  if (target === lockPath) stopOnce();
  linkSync(existing, target);
};
syncBuiltinESMExports();

const { LockFiles } = await import("../../src/locks/lock-file.js");
const locks = new LockFiles({ timeoutMs: 120_000, staleMs: 5_000 });
await locks.withLock(
  lockPath,
  async () => {
    process.stdout.write("held\n");
  },
  { writes: "segment" },
);
process.stdout.write("released\n");
