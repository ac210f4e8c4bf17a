import { randomBytes } from "node:crypto";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { defaultRegistry } from "@skein/thread-core";
import {
  type EncryptionOptions,
  encryptingLogDriver,
  LocalStore,
  type MessageRewrite,
} from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { FsLogDriver, fsStore } from "../src/index.js";

/** The fs driver, noting how many messages each of its segment rewrites (a copy of the segment) carried. */
class CountedRewrites extends FsLogDriver {
  readonly calls: Array<{ segment: string; messages: number }> = [];
  override async rewriteMessages(segment: string, rewrites: readonly MessageRewrite[]): Promise<boolean[]> {
    this.calls.push({ segment, messages: rewrites.length });
    return super.rewriteMessages(segment, rewrites);
  }
}

const MESSAGES = 1_000;

describe("rekey of a long fs thread", () => {
  it("copies its segment once per run, not once per batch, and a second run copies nothing", async () => {
    const directory = await temporaryDirectory();
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const writer = fsStore({ directory, encryption: { keys: { old: oldKey }, current: "old" } });
    const thread = await writer.create({ id: "long" });
    for (let from = 0; from < MESSAGES; from += 250)
      await thread.append(
        Array.from({ length: 250 }, (_, index) => ({
          role: "user" as const,
          text: `message ${from + index}`,
        })),
      );
    await writer.close();
    const rotated: EncryptionOptions = { keys: { old: oldKey, new: newKey }, current: "new" };
    const driver = new CountedRewrites({ directory });
    const store = new LocalStore({
      driver: encryptingLogDriver(driver, rotated),
      registry: defaultRegistry(),
      url: "file:rekey-copies",
    });
    // The default batch (100 messages per read): ten reads of the segment, one copy of it.
    const report = await store.rekey();
    expect(report).toMatchObject({ complete: true, remaining: {}, rewritten: { old: MESSAGES + 3 } });
    expect(driver.calls).toEqual([{ segment: expect.any(String), messages: MESSAGES }]);
    driver.calls.length = 0;
    expect((await store.rekey()).rewritten).toEqual({});
    expect(driver.calls).toEqual([]);
    await store.close();
    const reader = fsStore({ directory, encryption: { keys: { new: newKey }, current: "new" } });
    const messages = await (await reader.get("long")).messages();
    expect(messages).toHaveLength(MESSAGES);
    expect(messages.at(-1)?.contents).toEqual([{ type: "text", text: `message ${MESSAGES - 1}` }]);
    await reader.close();
  });
});
