import { randomBytes } from "node:crypto";
import type { EncryptionOwnerKeyProvider } from "../spec/encryption-options.js";
import { expect } from "./expect.js";
import { NEW, OLD, type RekeyCase, readThreads, rekey, withStore, writeThreads } from "./rekey-fixtures.js";

// Rekey beside what an encrypted store meets while it migrates: writers that read a thread before the run,
// keys per owner, and units still in clear from before encryption was turned on.

/** A key store with one key per owner and key id (made on first use), as a KMS would hold them. */
function ownerVault() {
  const keys = new Map<string, Buffer>();
  const key = (owner: string | undefined, keyId: string) => {
    const name = `${owner ?? ""}/${keyId}`;
    if (!keys.has(name)) keys.set(name, randomBytes(32));
    return keys.get(name);
  };
  /** Per-owner keys with `current`, answering only where `allowed` says so (else: no such key). */
  const options = (
    current: string,
    allowed: (owner: string | undefined, keyId: string) => boolean = () => true,
  ): EncryptionOwnerKeyProvider => ({
    current,
    ownerKeyProvider: ({ owner, keyId }) => (allowed(owner, keyId) ? key(owner, keyId) : undefined),
  });
  return { options };
}

export const MIGRATION_CASES: Record<string, RekeyCase> = {
  "a writer that read a thread before the rekey appends after it: nothing goes back to the old key": async (
    open,
  ) => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    await withStore(open, { keys: { [OLD]: oldKey }, current: OLD }, async (store) => {
      const thread = await store.create({ id: "rekey-stale", metadata: { topic: "stale" } });
      await thread.append({ id: "a", role: "user", text: "before" });
    });
    const rotated = { keys: { [OLD]: oldKey, [NEW]: newKey }, current: NEW };
    const writer = await open(rotated);
    try {
      // Holds the record as it was before the run: its append is planned on that record.
      const thread = await writer.get("rekey-stale");
      const report = await withStore(open, rotated, (store) => rekey(store));
      expect(report.remaining).toEqual({});
      await thread.append({ id: "b", role: "user", text: "after" });
    } finally {
      await writer.close();
    }
    const again = await withStore(open, rotated, (store) => rekey(store));
    expect(again.rewritten, "nothing went back to the old key").toEqual({});
    const read = await withStore(open, { keys: { [NEW]: newKey }, current: NEW }, async (store) => {
      const thread = await store.get("rekey-stale");
      return { metadata: thread.metadata, messages: (await thread.messages()).map((message) => message.id) };
    });
    expect(read).toEqual({ metadata: { topic: "stale" }, messages: ["a", "b"] });
  },

  "a thread appended to after the rotation: the append moved its end, rekey moves the rest": async (open) => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    await withStore(open, { keys: { [OLD]: oldKey }, current: OLD }, async (store) => {
      const thread = await store.create({ id: "rekey-half", metadata: { topic: "half" } });
      await thread.append({ id: "a", role: "user", text: "before" });
      await thread.checkpoint("labelled");
    });
    const rotated = { keys: { [OLD]: oldKey, [NEW]: newKey }, current: NEW };
    await withStore(open, rotated, async (store) => {
      await (await store.get("rekey-half")).append({ id: "b", role: "user", text: "after" });
    });
    // Metadata, the context, the label and one message are still on the old key; the end is not (an
    // append writes it, and leaves the context alone): the record's rewrite leaves the end out (a driver
    // must then neither compare nor set it).
    const report = await withStore(open, rotated, (store) => rekey(store));
    expect(report.rewritten, JSON.stringify(report)).toEqual({ [OLD]: 4 });
    expect(report.remaining).toEqual({});
    const read = await withStore(open, { keys: { [NEW]: newKey }, current: NEW }, async (store) => {
      const thread = await store.get("rekey-half");
      const history = await thread.history();
      return {
        metadata: thread.metadata,
        messages: (await thread.messages()).map((message) => message.id),
        labels: history.flatMap((event) => (event.kind === "checkpoint" ? [event.checkpoint.label] : [])),
      };
    });
    expect(read).toEqual({ metadata: { topic: "half" }, messages: ["a", "b"], labels: ["labelled"] });
  },

  "with per-owner keys, each owner's units are moved to that owner's current key": async (open) => {
    const vault = ownerVault();
    const ids = await withStore(open, vault.options(OLD), writeThreads);
    const before = await withStore(open, vault.options(OLD), (store) => readThreads(store, ids));
    const report = await withStore(open, vault.options(NEW), (store) => rekey(store, { batchSize: 4 }));
    expect(report.complete).toBe(true);
    expect(report.remaining).toEqual({});
    expect((report.rewritten[OLD] ?? 0) >= 31, JSON.stringify(report)).toBe(true);
    const newOnly = vault.options(NEW, (_owner, keyId) => keyId === NEW);
    expect(await withStore(open, newOnly, (store) => readThreads(store, ids))).toEqual(before);
    // The first two threads are u-1's (the fork keeps its parent's owner): a unit resealed under another
    // owner's key, or the store's, would ask for that key and find none.
    const ownersOnly = vault.options(NEW, (owner, keyId) => owner === "u-1" && keyId === NEW);
    const owned = ids.slice(0, 2);
    expect(await withStore(open, ownersOnly, (store) => readThreads(store, owned))).toEqual(
      before.slice(0, 2),
    );
  },

  "under allowPlaintext, rekey seals what is still in clear and reports it; the window can then close":
    async (open) => {
      const ids = await withStore(open, undefined, writeThreads);
      const before = await withStore(open, undefined, (store) => readThreads(store, ids));
      const key = randomBytes(32);
      const window = { keys: { [NEW]: key }, current: NEW, allowPlaintext: true };
      const writer = await open(window);
      let report: Awaited<ReturnType<typeof rekey>>;
      try {
        // Read in clear before the run, appended to after it: the append must not write the clear context back.
        const stale = await writer.get(ids[0] as string);
        report = await withStore(open, window, (store) => rekey(store, { batchSize: 5 }));
        await stale.append({ id: "late", role: "user", text: "late" });
      } finally {
        await writer.close();
      }
      expect(report.complete).toBe(true);
      expect(report.rewritten).toEqual({});
      expect(report.remaining).toEqual({});
      expect(report.plaintext.remaining).toBe(0);
      expect(report.plaintext.sealed >= 31, JSON.stringify(report)).toBe(true);
      const again = await withStore(open, window, (store) => rekey(store));
      expect(again.plaintext).toEqual({ sealed: 0, remaining: 0 });
      // Without the window, anything still in clear would read as IntegrityError.
      const after = await withStore(open, { keys: { [NEW]: key }, current: NEW }, (store) =>
        readThreads(store, ids),
      );
      expect(after.slice(1)).toEqual(before.slice(1));
      const main = after[0] as { messages: Array<{ id: string }> };
      const mainBefore = before[0] as { messages: Array<{ id: string }> };
      expect(main.messages.map((message) => message.id)).toEqual([
        ...mainBefore.messages.map((message) => message.id),
        "late",
      ]);
    },
};
