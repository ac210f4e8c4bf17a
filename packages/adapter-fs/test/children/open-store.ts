// Opens a store by URL in its own process (as another user, or where opening might hang) and prints one JSON
// line: what opened, or the error's name, code, message and its cause's code.
import { openStore } from "@skein/thread-core";
import "../../src/index.js";

const [url] = process.argv.slice(2) as [string];
try {
  const store = await openStore(url);
  await store.close();
  process.stdout.write(`${JSON.stringify({ opened: store.url })}\n`);
} catch (error) {
  const failure = error as Error & { code?: string; cause?: { code?: string } };
  process.stdout.write(
    `${JSON.stringify({ name: failure.name, code: failure.code, message: failure.message, cause: failure.cause?.code })}\n`,
  );
}
