// What the per-owner key tests of every adapter share: a key store that can destroy an owner's keys (as a
// KMS would), and the crypto-shredding checks, run against a real store of each backend.
import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import type { ThreadStore } from "@skein/thread-core";
import { type EncryptionOwnerKeyProvider, KeyNotFoundError } from "@skein/thread-core/driver";
import { expect } from "vitest";

/** An application's key store: one random key per owner and key id, destroyed on request. */
export class OwnerKeyVault {
  readonly #keys = new Map<string, Buffer>();
  readonly asked: Array<{ owner: string | undefined; keyId: string }> = [];

  /** The store option: keys by owner, `current` new writes, and `destroyOwnerKey`. */
  encryption(): EncryptionOwnerKeyProvider {
    return {
      current: "owner-key-1",
      ownerKeyProvider: ({ owner, keyId }) => {
        this.asked.push({ owner, keyId });
        const name = `${owner ?? ""}\u0000${keyId}`;
        if (this.#keys.has(name)) return this.#keys.get(name);
        if (this.destroyed.has(owner ?? "")) return undefined;
        const key = randomBytes(32);
        this.#keys.set(name, key);
        return key;
      },
      destroyOwnerKey: (owner) => {
        this.destroyed.add(owner);
        for (const name of [...this.#keys.keys()]) {
          if (name.startsWith(`${owner}\u0000`)) this.#keys.delete(name);
        }
      },
    };
  }

  readonly destroyed = new Set<string>();

  /** Every key the vault still holds, as text in the encodings a leak would show. */
  keyTexts(): string[] {
    return [...this.#keys.values()].flatMap((key) => [key.toString("hex"), key.toString("base64")]);
  }
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/**
 * Two owners' threads on `store` (opened with `vault.encryption()`), then `store.shredOwner` of one: every
 * read of theirs is a `KeyNotFoundError` naming key id and owner, listing still shows their threads with
 * what is clear, the other owner reads as before, and `reopen()` (a new process) cannot read them either.
 */
export async function checkOwnerShredding(
  store: ThreadStore,
  vault: OwnerKeyVault,
  reopen: () => ThreadStore | Promise<ThreadStore>,
): Promise<void> {
  const ana = await store.create({ id: "ana-1", owner: "ana", title: "Ana's trip", metadata: { a: 1 } });
  await ana.append([
    { id: "a1", role: "user", text: "ana's secret" },
    { id: "a2", role: "assistant", text: "noted" },
  ]);
  await ana.checkpoint("ana's checkpoint");
  const fork = await ana.fork();
  await fork.append({ id: "a3", role: "user", text: "in the fork" });
  const ben = await store.create({ id: "ben-1", owner: "ben", title: "Ben's plan" });
  await ben.append({ id: "b1", role: "user", text: "ben's words" });
  expect(vault.asked.some((request) => request.owner === "ana")).toBe(true);
  expect(vault.asked.some((request) => request.owner === "ben")).toBe(true);

  await store.shredOwner("ana");
  for (const read of [
    () => store.get("ana-1").then((thread) => thread.messages()),
    () => store.export("ana-1"),
    () => store.get(fork.id).then((thread) => thread.messages()),
    () => ana.messages(),
  ]) {
    const error = await failure(read());
    expect(KeyNotFoundError.isInstance(error), String(error)).toBe(true);
    expect((error as KeyNotFoundError).owner).toBe("ana");
    expect((error as KeyNotFoundError).keyId).toBe("owner-key-1");
    for (const text of vault.keyTexts()) expect(inspect(error, { depth: 5 })).not.toContain(text);
  }
  const listed = await store.list({ owner: "ana" });
  expect(listed.items.map((item) => item.id).sort()).toEqual(["ana-1", fork.id].sort());
  for (const item of listed.items) {
    expect(item.owner).toBe("ana");
    expect(item.title).toBeUndefined();
    expect(item.metadata).toEqual({});
    expect(typeof item.createdAt).toBe("string");
  }
  expect((await (await store.get("ben-1")).messages()).map((message) => message.id)).toEqual(["b1"]);
  expect((await store.list({ owner: "ben" })).items[0]?.title).toBe("Ben's plan");

  const again = await reopen();
  try {
    const error = await failure(again.get("ana-1").then((thread) => thread.messages()));
    expect(KeyNotFoundError.isInstance(error), String(error)).toBe(true);
    expect((await (await again.get("ben-1")).messages()).map((message) => message.id)).toEqual(["b1"]);
  } finally {
    await again.close();
  }
}
