import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { ConflictError, UnsupportedOperationError } from "../errors.js";
import { LocalStore } from "../local/local-store.js";
import type { LogDriver } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import { createMemoryStore } from "../memory/memory-thread-type.js";
import type { Message } from "../message.js";
import { openStore } from "../store/open-store.js";
import type { SkeinAdapter } from "../store/store.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";
import { IntegrityError, KeyNotFoundError } from "./encryption-errors.js";

/** A memory backend whose stored segments an attacker rewrites on the way out. */
class TamperedMemoryDriver extends MemoryLogDriver {
  tamper: (messages: Message[]) => Message[] = (messages) => messages;
  override async readSegment(id: string, from: number, to: number): Promise<Message[]> {
    // Read from the start so a cut or swap moves units to other offsets, then hand out the range asked.
    const all = this.tamper(await super.readSegment(id, 0, Number.MAX_SAFE_INTEGER));
    return all.slice(from, to);
  }
}

function storeOver(driver: LogDriver): LocalStore {
  return new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("an encrypting driver over a store", () => {
  const keys = { "2026-12": randomBytes(32) };

  it("reads stored messages swapped, cut or replaced by plaintext as IntegrityError, never as messages", async () => {
    const inner = new TamperedMemoryDriver();
    const store = storeOver(encryptingLogDriver(inner, { keys, current: "2026-12" }));
    const thread = await store.create({ id: "t" });
    await thread.append([
      { id: "a", role: "user", text: "one" },
      { id: "b", role: "assistant", text: "two" },
      { id: "c", role: "user", text: "three" },
    ]);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["a", "b", "c"]);
    const tampers: Array<(messages: Message[]) => Message[]> = [
      ([a, b, c]) => [b, a, c] as Message[],
      ([a, , c]) => [a, c] as Message[],
      ([a, b, c]) => [a, { ...(b as Message), contents: [{ type: "text", text: "forged" }] }, c] as Message[],
    ];
    for (const tamper of tampers) {
      inner.tamper = tamper;
      const error = await failure(thread.messages());
      expect(IntegrityError.isInstance(error), String(error)).toBe(true);
    }
  });

  it("appends from two handles that each planned on a stale record both land, each bound to its offset", async () => {
    const inner = new MemoryLogDriver();
    const store = storeOver(encryptingLogDriver(inner, { keys, current: "2026-12" }));
    const first = await store.create({ id: "t" });
    const second = await store.get("t");
    await first.append({ id: "a", role: "user", text: "from first" });
    // `second` still holds revision 0: its append is planned again on the newer record, not refused.
    await second.append({ id: "b", role: "user", text: "from second" });
    await Promise.all([
      first.append({ id: "c", role: "user", text: "c" }),
      second.append({ id: "d", role: "user", text: "d" }),
    ]);
    const again = await storeOver(encryptingLogDriver(inner, { keys, current: "2026-12" })).get("t");
    expect((await again.messages()).map((message) => message.id).sort()).toEqual(["a", "b", "c", "d"]);
  });

  it("a store without the key that sealed a thread says which key is missing", async () => {
    const inner = new MemoryLogDriver();
    await storeOver(encryptingLogDriver(inner, { keys, current: "2026-12" })).create({
      id: "t",
      metadata: { a: 1 },
    });
    const other = storeOver(
      encryptingLogDriver(inner, { keys: { "2027-06": randomBytes(32) }, current: "2027-06" }),
    );
    const error = await failure(other.get("t"));
    expect(KeyNotFoundError.isInstance(error)).toBe(true);
    expect((error as KeyNotFoundError).keyId).toBe("2026-12");
  });

  it("neither inspect nor JSON of an encrypted store shows key material", async () => {
    const store = createMemoryStore({ registry: createRegistry(), encryption: { keys, current: "2026-12" } });
    const key = keys["2026-12"];
    for (const text of [inspect(store, { depth: 6, showHidden: true }), JSON.stringify(store.driver)]) {
      expect(text).not.toContain(key.toString("hex"));
      expect(text).not.toContain(key.toString("base64"));
    }
  });
});

describe("key rotation", () => {
  it("reads every listed key, writes the current one, and re-imports what an older key sealed", async () => {
    const inner = new MemoryLogDriver();
    const old = { "2026-06": randomBytes(32) };
    const before = storeOver(encryptingLogDriver(inner, { keys: old, current: "2026-06" }));
    const thread = await before.create({ id: "t", metadata: { step: 1 } });
    await thread.append([
      { id: "a", role: "user", text: "one" },
      { id: "b", role: "assistant", text: "two" },
    ]);
    await thread.checkpoint("before rotation");
    const exported = JSON.parse(JSON.stringify(await before.export("t")));

    const rotated = { ...old, "2026-12": randomBytes(32) };
    const after = storeOver(encryptingLogDriver(inner, { keys: rotated, current: "2026-12" }));
    const again = await after.get("t");
    expect((await again.messages()).map((message) => message.id)).toEqual(["a", "b"]);
    await again.append({ id: "c", role: "user", text: "three" });
    const head = ((await inner.read("t")) as { head: string }).head;
    const keyIds = (await inner.readSegment(head, 0, 3)).map(
      (message) => (message.contents[0] as unknown as { key: string }).key,
    );
    expect(keyIds).toEqual(["2026-06", "2026-06", "2026-12"]);
    // An equal re-import shares the stored segments, though they were sealed under the older key.
    const copy = await after.import(exported, { id: "copy" });
    expect((await copy.messages()).map((message) => message.id)).toEqual(["a", "b"]);
    const changed = JSON.parse(JSON.stringify(exported));
    changed.segments[0].messages[0].contents = [{ type: "text", text: "rewritten" }];
    expect(ConflictError.isInstance(await failure(after.import(changed, { id: "changed" })))).toBe(true);
  });
});

describe("openStore with encryption", () => {
  it("refuses, and closes, a store whose adapter ignored the option", async () => {
    let closed = false;
    const plain: SkeinAdapter = {
      specificationVersion: "v1",
      packageName: "plain-adapter",
      schemes: ["plain"],
      types: [],
      async openStore() {
        const store = createMemoryStore({ registry: createRegistry() });
        const close = store.close.bind(store);
        store.close = async () => {
          closed = true;
          await close();
        };
        return store;
      },
    };
    const error = await failure(
      openStore("plain://here", {
        adapters: [plain],
        registry: createRegistry(),
        encryption: { keys: { k: randomBytes(32) }, current: "k" },
      }),
    );
    expect(UnsupportedOperationError.isInstance(error), String(error)).toBe(true);
    expect(closed).toBe(true);
  });

  it("encrypts memory: when asked", async () => {
    const store = await openStore("memory:", {
      registry: createRegistry(),
      encryption: { keys: { k: randomBytes(32) }, current: "k" },
    });
    const inner = (store as LocalStore).driver as LogDriver & { inner: MemoryLogDriver };
    const thread = await store.create({ id: "t", metadata: { topic: "PLAIN-MARKER" } });
    await thread.append({ role: "user", text: "PLAIN-MARKER" });
    await thread.checkpoint("PLAIN-MARKER");
    const record = await inner.inner.read("t");
    const head = (record as { head: string }).head;
    const stored = JSON.stringify([record, await inner.inner.readSegment(head, 0, 10)]);
    expect(stored).not.toContain("PLAIN-MARKER");
    expect((await thread.messages())[0]?.contents).toEqual([{ type: "text", text: "PLAIN-MARKER" }]);
  });
});
