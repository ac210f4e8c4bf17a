import { closeSync, linkSync, openSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureInTurns } from "./measure.js";
import { temporaryDirectory } from "./temporary-directory.js";

/**
 * Issue 18's fix, costed (not part of `npm run bench`): a lock file created whole, its ~140 bytes written
 * under `<lock>.<nonce>` and hard-linked into place (then both names removed, as a release does), beside
 * the lock created with open("wx") and then written (then removed), in turns, REPEATS times (default 3) of
 * RUNS runs. Only the file system calls: the rest of the lock is the same either way.
 */
const content = JSON.stringify({
  pid: process.pid,
  hostname: "host",
  nonce: "0".repeat(24),
  writes: "segment",
  acquiredAt: new Date().toISOString(),
  started: "123456",
});

async function turns(repeats: number, runs: number) {
  const ratios: number[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    const directory = temporaryDirectory();
    const lock = join(directory, "t.lock");
    let nonce = 0;
    const written = async () => {
      const descriptor = openSync(lock, "wx");
      writeSync(descriptor, content);
      closeSync(descriptor);
      unlinkSync(lock);
    };
    const linked = async () => {
      const unlinked = `${lock}.${(nonce++).toString(16).padStart(24, "0")}`;
      const descriptor = openSync(unlinked, "wx");
      writeSync(descriptor, content);
      closeSync(descriptor);
      linkSync(unlinked, lock);
      unlinkSync(lock);
      unlinkSync(unlinked);
    };
    const [writtenTime, linkedTime] = (await measureInTurns([written, linked], runs, 50, 10)) as [
      number,
      number,
    ];
    ratios.push(linkedTime / writtenTime);
    console.log(
      `repeat ${repeat + 1}: open("wx") + write ${writtenTime.toFixed(1)} µs, written then linked ${linkedTime.toFixed(1)} µs (+${(linkedTime - writtenTime).toFixed(1)} µs, ${(linkedTime / writtenTime).toFixed(2)}×)`,
    );
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(
    `linked/written median ${(sorted[Math.floor(sorted.length / 2)] as number).toFixed(2)}×, spread ${(sorted[0] as number).toFixed(2)}–${(sorted[sorted.length - 1] as number).toFixed(2)}×`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await turns(Number(process.env.REPEATS ?? 3), Number(process.env.RUNS ?? 2000));
}
