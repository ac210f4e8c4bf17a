// A writer that keeps going through an outage: appends `count` messages, `pauseMs` apart, and retries an
// append that failed with StoreUnavailableError with the same message id until it lands. It prints
//   ack <id> <time>                  when an append resolved (time: epoch milliseconds)
//   replayed <id>                    when the append that resolved was a no-op because an earlier,
//                                    seemingly failed attempt had landed (the stored createdAt is older)
//   error <name> <retryable> <ms> <time> <prefixed>  for each failure, with how long the call took and
//                                    whether its message starts "[adapter-redis] "
// and exits 1 at once on an error that is not a StoreUnavailableError.
// Usage: retrying-writer.ts <store url> <thread id> <writer> <count> <pauseMs>
import { openStore, StoreUnavailableError } from "@skein/thread-core";

const [url, threadId, writer, count, pauseMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const store = await openStore(url);
const thread = await store.get(threadId);
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
process.stdout.write("ready\n");
for (let index = 0; index < Number(count); index++) {
  const id = `${writer}-${String(index).padStart(4, "0")}`;
  for (;;) {
    // Each attempt stamps its own createdAt, so a no-op retry shows in the stored message's older stamp.
    const createdAt = new Date().toISOString();
    const started = Date.now();
    try {
      const [stored] = await thread.append({
        id,
        role: "user",
        createdAt,
        text: `message ${index} from ${writer}`,
      });
      if (stored?.createdAt !== createdAt) process.stdout.write(`replayed ${id}\n`);
      process.stdout.write(`ack ${id} ${Date.now()}\n`);
      break;
    } catch (error) {
      const name = error instanceof Error ? error.name : typeof error;
      const retryable = (error as { retryable?: unknown }).retryable === true;
      const prefixed = String((error as Error)?.message).startsWith("[adapter-redis] ");
      process.stdout.write(`error ${name} ${retryable} ${Date.now() - started} ${Date.now()} ${prefixed}\n`);
      if (!StoreUnavailableError.isInstance(error)) {
        process.stderr.write(`${String(error)}\n`);
        process.exit(1);
      }
      await pause(50);
    }
  }
  await pause(Number(pauseMs));
}
await store.close();
process.stdout.write("done\n");
