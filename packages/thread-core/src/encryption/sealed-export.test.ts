import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { InvalidThreadStateError, UnsupportedOperationError } from "../errors.js";
import { LocalStore } from "../local/local-store.js";
import type { LogDriver } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import type { EncryptionOptions } from "../spec/encryption-options.js";
import type { Thread } from "../thread.js";
import { encryptingLogDriver } from "./encrypting-log-driver.js";
import { KeyNotFoundError } from "./encryption-errors.js";

const MARKER = "SEALED-EXPORT-MARKER";
const key = randomBytes(32);
const encryption: EncryptionOptions = { keys: { "2026-12": key }, current: "2026-12" };

function storeOver(driver: LogDriver): LocalStore {
  return new LocalStore({ driver, registry: createRegistry(), url: "memory:" });
}

function encryptedStore(options: EncryptionOptions = encryption): LocalStore {
  return storeOver(encryptingLogDriver(new MemoryLogDriver(), options));
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

async function plantedThread(store: LocalStore): Promise<Thread> {
  const thread = await store.create({
    id: "t",
    owner: "ana",
    title: `title ${MARKER}`,
    metadata: { topic: MARKER },
  });
  await thread.append([
    { id: "a", role: "system", text: `system ${MARKER}` },
    { id: "b", role: "user", text: `user ${MARKER}` },
  ]);
  await thread.checkpoint(`label ${MARKER}`);
  await thread.append({ id: "c", role: "assistant", text: `reply ${MARKER}` });
  return thread;
}

/** What a reader sees of a thread: its messages, metadata, title and checkpoint labels. */
async function seen(store: LocalStore, id: string) {
  const thread = await store.get(id);
  const exported = await store.export(id);
  return {
    messages: await thread.messages(),
    metadata: exported.metadata,
    title: (exported as { title?: string }).title,
    labels: (await thread.history()).flatMap((event) =>
      event.kind === "checkpoint" ? [event.checkpoint.label] : [],
    ),
  };
}

describe("export({ encrypted: true })", () => {
  it("keeps every unit sealed with its key id, and imports into a store with the same keys as the same thread", async () => {
    const source = encryptedStore();
    await plantedThread(source);
    const sealed = JSON.parse(JSON.stringify(await source.export("t", { encrypted: true })));
    const text = JSON.stringify(sealed);
    expect(text).not.toContain(MARKER);
    expect(text).not.toContain(key.toString("hex"));
    expect(text).not.toContain(key.toString("base64"));
    expect(sealed.$encrypted).toEqual({ keyIds: ["2026-12"] });
    expect(sealed.owner).toBe("ana");

    const target = encryptedStore();
    const imported = await target.import(sealed);
    expect(imported.id).toBe("t");
    expect(await seen(target, "t")).toEqual(await seen(source, "t"));
    // A plain export is still the default, and holds the user's data in clear.
    expect(JSON.stringify(await source.export("t"))).toContain(MARKER);
  });

  it("is refused by a store without the keys (KeyNotFoundError) and under another id", async () => {
    const source = encryptedStore();
    await plantedThread(source);
    const sealed = await source.export("t", { encrypted: true });
    const other = encryptedStore({ keys: { "2027-06": randomBytes(32) }, current: "2027-06" });
    const missing = await failure(other.import(sealed));
    expect(KeyNotFoundError.isInstance(missing), String(missing)).toBe(true);
    expect((missing as KeyNotFoundError).keyId).toBe("2026-12");
    const renamed = await failure(encryptedStore().import(sealed, { id: "elsewhere" }));
    expect(InvalidThreadStateError.isInstance(renamed), String(renamed)).toBe(true);
  });

  it("is refused on a store that is not encrypted, both ways", async () => {
    const plain = storeOver(new MemoryLogDriver());
    await plain.create({ id: "t" });
    const refused = await failure(plain.export("t", { encrypted: true }));
    expect(UnsupportedOperationError.isInstance(refused), String(refused)).toBe(true);
    const source = encryptedStore();
    await plantedThread(source);
    const sealed = await source.export("t", { encrypted: true });
    expect(UnsupportedOperationError.isInstance(await failure(plain.import(sealed)))).toBe(true);
  });

  it("round-trips through a scope, and per-owner keys travel with the units", async () => {
    const keys = new Map<string, Buffer>();
    const perOwner: EncryptionOptions = {
      current: "v1",
      ownerKeyProvider: ({ owner, keyId }) => {
        const name = `${owner}/${keyId}`;
        if (!keys.has(name)) keys.set(name, randomBytes(32));
        return keys.get(name);
      },
    };
    const source = encryptedStore(perOwner).scope("tenant");
    await plantedThread(source as LocalStore);
    const sealed = JSON.parse(JSON.stringify(await source.export("t", { encrypted: true })));
    expect(JSON.stringify(sealed)).not.toContain(MARKER);
    const target = encryptedStore(perOwner).scope("tenant");
    await target.import(sealed);
    expect(await seen(target as LocalStore, "t")).toEqual(await seen(source as LocalStore, "t"));
  });
});
