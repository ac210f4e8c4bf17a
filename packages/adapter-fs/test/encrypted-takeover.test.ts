import { utimesSync, writeFileSync } from "node:fs";
import { testEncryption } from "@skein/test-support/encryption-markers";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { FsLogDriver, fsStore } from "../src/index.js";
import { StoreLayout } from "../src/records/store-layout.js";

/** Low, so that the abandoned lock below is stale at once. */
const STALE_MS = 150;

/**
 * Leaves the thread's lock held by a writer on another host that stopped refreshing it while appending: it
 * cannot be checked, so it may still run, and the next writer takes the lock over and moves the thread onto
 * a new, empty head segment (`moveOffSealedHead`), which the fs driver does without keys.
 */
function abandonLock(directory: string, id: string): void {
  const path = new StoreLayout(directory).threadLockPath(id);
  const acquiredAt = new Date(Date.now() - 60_000);
  writeFileSync(
    path,
    JSON.stringify({
      pid: 4242,
      hostname: "another-host.invalid",
      nonce: "f".repeat(24),
      writes: "record",
      acquiredAt: acquiredAt.toISOString(),
    }),
  );
  utimesSync(path, acquiredAt, acquiredAt);
}

/** The head segment of the thread's record as stored (segment ids are kept clear). */
async function storedHead(directory: string, id: string): Promise<string> {
  const driver = new FsLogDriver({ directory });
  try {
    const record = await driver.read(id);
    if (record?.kind !== "log") throw new Error(`no log record ${id}`);
    return record.head;
  } finally {
    await driver.close();
  }
}

describe("an encrypted fs thread after a lock takeover", () => {
  it("reads and appends whole, through the head the takeover made, for the taker and for other stores", async () => {
    const directory = await temporaryDirectory();
    const encryption = testEncryption();
    const writer = fsStore({ directory, encryption, staleLockMs: STALE_MS });
    const thread = await writer.create({ id: "t" });
    await thread.append([
      { id: "a", role: "user", text: "first" },
      { id: "b", role: "assistant", text: "second" },
    ]);
    const headBefore = await storedHead(directory, "t");
    abandonLock(directory, "t");
    // The taker: its append takes the lock over, moves the head, then lands.
    const taker = fsStore({ directory, encryption, staleLockMs: STALE_MS });
    await (await taker.get("t")).append({ id: "c", role: "user", text: "third" });
    const reader = fsStore({ directory, encryption });
    expect(await storedHead(directory, "t")).not.toBe(headBefore);
    expect((await (await reader.get("t")).messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    // The first writer, which planned on the head before the takeover, appends on.
    await thread.append({ id: "d", role: "assistant", text: "fourth" });
    const later = fsStore({ directory, encryption });
    const messages = await (await later.get("t")).messages();
    expect(messages.map((message) => message.id)).toEqual(["a", "b", "c", "d"]);
    expect(messages.map((message) => message.contents)).toEqual(
      ["first", "second", "third", "fourth"].map((text) => [{ type: "text", text }]),
    );
    await Promise.all([writer.close(), taker.close(), reader.close(), later.close()]);
  });

  it("reads whole after a takeover that moved the head with nothing appended since", async () => {
    const directory = await temporaryDirectory();
    const encryption = testEncryption();
    const writer = fsStore({ directory, encryption, staleLockMs: STALE_MS });
    const thread = await writer.create({ id: "t" });
    await thread.append({ id: "a", role: "user", text: "first" });
    const headBefore = await storedHead(directory, "t");
    abandonLock(directory, "t");
    // A metadata change takes the lock over too, and moves the head before it rewrites the record.
    const taker = fsStore({ directory, encryption, staleLockMs: STALE_MS });
    await (await taker.get("t")).update({ metadata: { moved: true } });
    expect(await storedHead(directory, "t")).not.toBe(headBefore);
    const reader = fsStore({ directory, encryption });
    const read = await reader.get("t");
    expect((await read.messages()).map((message) => message.id)).toEqual(["a"]);
    expect(read.toJSON().metadata).toEqual({ moved: true });
    await Promise.all([writer.close(), taker.close(), reader.close()]);
  });
});
