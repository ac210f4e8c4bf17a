import { randomBytes } from "node:crypto";
import { UnsupportedOperationError } from "../errors.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import type { ThreadStore } from "../spec/thread-store.js";
import { expect } from "./expect.js";
import { NEW, OLD, type RekeyCase, readThreads, rekey, withStore, writeThreads } from "./rekey-fixtures.js";
import { MIGRATION_CASES } from "./rekey-migration-cases.js";
import { registerCase, type SuiteOptions } from "./test-runner.js";

/** Options of `runRekeySuite`: a way to open one backend again and again, with whatever keys a case gives. */
export interface RekeySuiteOptions extends SuiteOptions {
  /**
   * The same fresh, empty backend each time within a case (a new one per case), opened with `encryption`, or
   * unencrypted without it. The suite closes each store it opens.
   */
  openStore: (encryption?: EncryptionOptions) => Promise<ThreadStore>;
}

/**
 * Key rotation (`store.rekey`) as named cases: what an older key sealed is moved to the current one, so the
 * older key can be dropped; a stopped run is finished by the next; appends racing a run all land; per-owner
 * keys stay per owner; units in clear (`allowPlaintext`) are sealed.
 * @example runRekeySuite({ name: "redis", openStore: (encryption) => openStore(url, { encryption }), describe, it });
 */
export function runRekeySuite(options: RekeySuiteOptions): void {
  options.describe(`rekey: ${options.name}`, () => {
    for (const [name, body] of Object.entries(CASES)) {
      registerCase(options, name, async () => {
        try {
          await body(options.openStore);
        } finally {
          await options.cleanup?.();
        }
      });
    }
  });
}

const CASES: Record<string, RekeyCase> = {
  "rekey moves every unit to the current key: the old key can then be dropped and every thread reads the same":
    async (open) => {
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const ids = await withStore(open, { keys: { [OLD]: oldKey }, current: OLD }, writeThreads);
      const before = await withStore(open, { keys: { [OLD]: oldKey }, current: OLD }, (store) =>
        readThreads(store, ids),
      );
      const rotated = { keys: { [OLD]: oldKey, [NEW]: newKey }, current: NEW };
      const report = await withStore(open, rotated, (store) => rekey(store, { batchSize: 7 }));
      expect(report.complete).toBe(true);
      expect(report.current).toBe(NEW);
      expect(report.remaining).toEqual({});
      // 3 + 1 + 1 + 1 + 25 messages, 2 records of metadata and context each... at least the messages.
      expect((report.rewritten[OLD] ?? 0) >= 31, JSON.stringify(report)).toBe(true);
      expect(report.records).toBe(3);
      const again = await withStore(open, rotated, (store) => rekey(store));
      expect(again.rewritten, "a second run finds nothing on the old key").toEqual({});
      expect(again.remaining).toEqual({});
      const after = await withStore(open, { keys: { [NEW]: newKey }, current: NEW }, (store) =>
        readThreads(store, ids),
      );
      expect(after).toEqual(before);
    },

  "a stopped rekey says complete: false, and the next run finishes": async (open) => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const ids = await withStore(open, { keys: { [OLD]: oldKey }, current: OLD }, writeThreads);
    const rotated = { keys: { [OLD]: oldKey, [NEW]: newKey }, current: NEW };
    const stopped = await withStore(open, rotated, (store) => {
      const controller = new AbortController();
      return rekey(store, {
        batchSize: 1,
        signal: controller.signal,
        onProgress: () => controller.abort(),
      });
    });
    expect(stopped.complete).toBe(false);
    const finished = await withStore(open, rotated, (store) => rekey(store, { batchSize: 1 }));
    expect(finished.complete).toBe(true);
    expect(finished.remaining).toEqual({});
    const check = await withStore(open, rotated, (store) => rekey(store));
    expect(check.rewritten).toEqual({});
    await withStore(open, { keys: { [NEW]: newKey }, current: NEW }, (store) => readThreads(store, ids));
  },

  "appends racing a rekey all land, once each, and read with the new key alone": async (open) => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    await withStore(open, { keys: { [OLD]: oldKey }, current: OLD }, async (store) => {
      const thread = await store.create({ id: "rekey-race" });
      await thread.append(
        Array.from({ length: 40 }, (_, index) => ({
          id: `o${index}`,
          role: "user" as const,
          text: `o${index}`,
        })),
      );
    });
    const rotated = { keys: { [OLD]: oldKey, [NEW]: newKey }, current: NEW };
    const writer = await open(rotated);
    const rekeyer = await open(rotated);
    try {
      const thread = await writer.get("rekey-race");
      const appends = (async () => {
        for (let index = 0; index < 30; index++) {
          await thread.append({ id: `w${index}`, role: "user", text: `w${index}` });
        }
      })();
      const report = await rekey(rekeyer, { batchSize: 3 });
      await appends;
      expect(report.remaining).toEqual({});
    } finally {
      await writer.close();
      await rekeyer.close();
    }
    const messages = await withStore(open, { keys: { [NEW]: newKey }, current: NEW }, async (store) =>
      (await store.get("rekey-race")).messages(),
    );
    const expected = [
      ...Array.from({ length: 40 }, (_, index) => `o${index}`),
      ...Array.from({ length: 30 }, (_, index) => `w${index}`),
    ];
    expect(messages.map((message) => message.id)).toEqual(expected);
    expect(messages.map((message) => (message.contents[0] as { text?: string }).text)).toEqual(expected);
  },

  "a store that does not encrypt refuses rekey with UnsupportedOperationError": async (open) => {
    await withStore(open, undefined, async (store) => {
      const error = await store.rekey().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(UnsupportedOperationError.isInstance(error), String(error)).toBe(true);
    });
  },
  ...MIGRATION_CASES,
};
