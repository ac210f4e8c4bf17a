// One writer process of the multi-process Redis concurrency row (redis-concurrency.ts): prepares its
// threads, prints "ready", appends when stdin says "go", prints "done", and exits.
import { type ConcurrencySubject, concurrentWriters } from "./redis-concurrency.js";

const [url, subject, threads, appends] = process.argv.slice(2);
const writers = await concurrentWriters(url as string, Number(threads), Number(appends));
// Warm: scripts loaded and the append path compiled before the timed round, as in one process.
const warm = await writers.prepare(subject as ConcurrencySubject);
await warm.run();
await warm.cleanup();
const round = await writers.prepare(subject as ConcurrencySubject);
process.stdout.write("ready\n");
await new Promise<void>((resolve) => {
  process.stdin.on("data", (chunk: Buffer) => {
    if (chunk.toString().includes("go")) resolve();
  });
});
await round.run();
process.stdout.write("done\n");
await round.cleanup();
await writers.close();
