// A store written by an application with per-owner keys (`ownerKeyProvider`), opened by the CLI with a keys file
// whose `owners` directory holds each owner's keys: read, exported, rekeyed and erased (crypto-shredded).
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@skein/thread-core";
import type { EncryptionOptions } from "@skein/thread-core/driver";
import { afterAll, describe, expect, inject, it } from "vitest";
import { skein, skeinOk } from "./run-skein.js";

const OLD = "2026-06";
const NEW = "2026-12";
/** Owners as applications name them: one with an uppercase letter and a slash, kept apart in file names. */
const OWNERS = ["ana", "Ben/tenant-b"];
/** The file of each owner in the `owners` directory, as the README spells the rule. */
const FILE_NAMES: Record<string, string> = { ana: "ana.json", "Ben/tenant-b": "%42en%2Ftenant-b.json" };

const directory = mkdtempSync(join(tmpdir(), "skein-cli-owner-keys-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Each owner's keys, and those of threads without an owner (""), by key id. */
const keys = new Map<string, Record<string, Buffer>>(
  ["", ...OWNERS].map((owner) => [owner, { [OLD]: randomBytes(32), [NEW]: randomBytes(32) }]),
);

function keyOf(owner: string | undefined, keyId: string): Buffer | undefined {
  return keys.get(owner ?? "")?.[keyId];
}

/** The application's options: a key store that answers per owner, as a KMS would. */
function applicationKeys(current: string): EncryptionOptions {
  return { current, ownerKeyProvider: ({ owner, keyId }) => keyOf(owner, keyId) };
}

const base64 = (ids: string[], owner: string) =>
  Object.fromEntries(ids.map((id) => [id, keyOf(owner, id)?.toString("base64")]));

/** A keys file naming every owner's keys under `ids`, in a directory of its own next to it. */
function keysFile(name: string, current: string, ids: string[]): string {
  const home = join(directory, name);
  mkdirSync(join(home, "owner-keys"), { recursive: true });
  for (const owner of OWNERS) {
    writeFileSync(
      join(home, "owner-keys", FILE_NAMES[owner] as string),
      JSON.stringify({ owner, keys: base64(ids, owner) }),
      { mode: 0o600 },
    );
  }
  const file = join(home, "keys.json");
  writeFileSync(file, JSON.stringify({ current, keys: base64(ids, ""), owners: "./owner-keys" }), {
    mode: 0o600,
  });
  return file;
}

/** A file store (or a scope of another) the application wrote with per-owner keys, each thread under OLD. */
async function writtenStore(
  name: string,
  url = `file:${join(directory, name)}`,
  scope?: string,
): Promise<string> {
  const root = await openStore(url, { encryption: applicationKeys(OLD) });
  const store = scope === undefined ? root : root.scope(scope);
  try {
    for (const owner of [...OWNERS, undefined]) {
      const id = `${(owner ?? "shared").replace(/\W/g, "-")}-1`;
      const thread = await store.create({ id, ...(owner ? { owner } : {}), metadata: { whose: id } });
      await thread.append([
        { id: "m1", role: "user", text: `${id} asks` },
        { id: "m2", role: "assistant", text: `${id} answers` },
      ]);
    }
  } finally {
    await root.close();
  }
  return url;
}

/** The messages' texts of `id`, read by the application with the keys under `current` alone. */
async function applicationReads(store: string, id: string, current: string): Promise<string[]> {
  const opened = await openStore(store, {
    encryption: {
      current,
      ownerKeyProvider: ({ owner, keyId }) => (keyId === current ? keyOf(owner, keyId) : undefined),
    },
  });
  try {
    const thread = await opened.get(id);
    return (await thread.messages()).map((message) => (message.contents[0] as { text: string }).text);
  } finally {
    await opened.close();
  }
}

describe("a keys file with per-owner keys", () => {
  it("opens a store written with per-owner keys: show and export read every owner's threads", async () => {
    const store = await writtenStore("read");
    const file = keysFile("read-keys", OLD, [OLD]);
    const shown = await skein(["show", "Ben-tenant-b-1", "--keys-file", file], { store });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("Ben-tenant-b-1 answers");
    const exported = await skein(["export", "--all", "--keys-file", file], { store });
    expect(exported.code, exported.stderr).toBe(0);
    const threads = exported.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(threads.map((thread) => thread.id).sort()).toEqual(["Ben-tenant-b-1", "ana-1", "shared-1"]);
    expect(exported.stdout).toContain("ana-1 asks");
    expect(exported.stdout).toContain("shared-1 answers");
    // A thread an owner wrote before per-owner keys were turned on is under the store's keys: "keys" opens it.
    const before = await openStore(store, {
      encryption: { current: OLD, keys: { [OLD]: keyOf(undefined, OLD) as Buffer } },
    });
    try {
      const early = await before.create({ id: "early", owner: "ana" });
      await early.append({ id: "e1", role: "user", text: "written before per-owner keys" });
    } finally {
      await before.close();
    }
    expect(await skeinOk(["show", "early", "--keys-file", file], { store })).toContain(
      "before per-owner keys",
    );
    // No key of any owner in what the CLI printed.
    for (const owner of ["", ...OWNERS]) expect(exported.stdout).not.toContain(base64([OLD], owner)[OLD]);
  });

  it("rekeys every owner's threads to their current key; afterwards each reads with that key alone", async () => {
    const store = await writtenStore("rekey");
    const rotated = keysFile("rekey-keys", NEW, [OLD, NEW]);
    const result = await skein(["rekey", "--keys-file", rotated, "--json"], { store });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ current: NEW, records: 3, complete: true, remaining: {} });
    expect(report.rewritten[OLD]).toBeGreaterThan(0);
    expect(await applicationReads(store, "ana-1", NEW)).toEqual(["ana-1 asks", "ana-1 answers"]);
    expect(await applicationReads(store, "shared-1", NEW)).toEqual(["shared-1 asks", "shared-1 answers"]);
    // The CLI too, from a keys file that no longer holds the old keys.
    const newOnly = keysFile("rekey-new-keys", NEW, [NEW]);
    expect(await skeinOk(["show", "Ben-tenant-b-1", "--keys-file", newOnly], { store })).toContain(
      "Ben-tenant-b-1 asks",
    );
  });

  it("rekey reports by owner what it moved and what still uses an old key", async () => {
    const store = await writtenStore("rekey-owners");
    const rotated = keysFile("rekey-owners-keys", NEW, [OLD, NEW]);
    const result = await skein(["rekey", "--keys-file", rotated, "--json"], { store });
    expect(result.code, result.stderr).toBe(0);
    // Each thread: two messages, then its metadata, context and authenticated end, under its owner's key.
    expect(JSON.parse(result.stdout).owners).toEqual([
      { rewritten: { [OLD]: 5 }, remaining: {} },
      { owner: "Ben/tenant-b", rewritten: { [OLD]: 5 }, remaining: {} },
      { owner: "ana", rewritten: { [OLD]: 5 }, remaining: {} },
    ]);
    const text = await skeinOk(["rekey", "--keys-file", keysFile("rekey-owners-text", NEW, [OLD, NEW])], {
      store: await writtenStore("rekey-owners-text"),
    });
    expect(text.split("\n")).toEqual(
      expect.arrayContaining([
        `threads without an owner: re-encrypted from "${OLD}": 5; nothing on an old key`,
        `owner "Ben/tenant-b": re-encrypted from "${OLD}": 5; nothing on an old key`,
        `owner "ana": re-encrypted from "${OLD}": 5; nothing on an old key`,
      ]),
    );
  });

  it("erase crypto-shreds the owner: their key file goes, and a backup taken before reads as no key", async () => {
    const store = await writtenStore("erase");
    const file = keysFile("erase-keys", OLD, [OLD]);
    const backup = join(directory, "erase-backup");
    cpSync(store.slice("file:".length), backup, { recursive: true });

    const result = await skein(["erase", "--owner", "ana", "--json", "--keys-file", file], { store });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      owner: "ana",
      method: "deleted+crypto-shredded",
      threads: 1,
      messages: 2,
    });
    expect(existsSync(join(directory, "erase-keys", "owner-keys", "ana.json"))).toBe(false);
    expect(
      existsSync(join(directory, "erase-keys", "owner-keys", FILE_NAMES["Ben/tenant-b"] as string)),
    ).toBe(true);
    // The backup still holds ana's thread, sealed with a key that no longer exists anywhere.
    const fromBackup = await skein(["show", "ana-1", "--keys-file", file], { store: `file:${backup}` });
    expect(fromBackup.code).toBe(1);
    expect(fromBackup.stderr).toContain("crypto-shredded");
    expect(fromBackup.stderr).toContain("ana");
    // Other owners, and threads without one, read as before.
    expect(await skeinOk(["show", "Ben-tenant-b-1", "--keys-file", file], { store })).toContain("answers");
    expect(await skeinOk(["show", "shared-1", "--keys-file", file], { store: `file:${backup}` })).toContain(
      "shared-1 asks",
    );
    // Run again: nothing left, and the key already gone is no error.
    const again = await skeinOk(["erase", "--owner", "ana", "--keys-file", file], { store });
    expect(again).toBe('erased 0 threads of "ana": 0 messages, 0 bytes (deleted+crypto-shredded)\n');
  });

  it("a malformed owner's file is named with its field, never a key, and read only when that owner is", async () => {
    const store = await writtenStore("malformed");
    const file = keysFile("malformed-keys", OLD, [OLD]);
    const anaFile = join(directory, "malformed-keys", "owner-keys", "ana.json");
    const short = randomBytes(31).toString("base64");
    writeFileSync(anaFile, JSON.stringify({ owner: "ana", keys: { [OLD]: short } }));
    const refused = await skein(["show", "ana-1", "--keys-file", file], { store });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(
      `keys file ${anaFile} cannot be used: field keys["${OLD}"] must be 32 bytes`,
    );
    expect(refused.stderr).not.toContain(short);
    // Another owner's threads are read meanwhile: the directory is read an owner at a time.
    expect(await skeinOk(["show", "Ben-tenant-b-1", "--keys-file", file], { store })).toContain("answers");

    writeFileSync(anaFile, JSON.stringify({ owner: "Ana", keys: base64([OLD], "ana") }));
    const renamed = await skein(["show", "ana-1", "--keys-file", file], { store });
    expect(renamed.code).toBe(5);
    expect(renamed.stderr).toContain(`keys file ${anaFile} cannot be used: field owner must be`);

    const broken = join(directory, "malformed-keys", "broken.json");
    writeFileSync(broken, JSON.stringify({ current: OLD, owners: 7 }));
    const top = await skein(["ls", "--keys-file", broken], { store });
    expect(top.code).toBe(5);
    expect(top.stderr).toContain(`keys file ${broken} cannot be used: field owners must be the directory`);
  });

  it("erase --keep-keys deletes and keeps the key file; shred destroys an owner's keys and deletes nothing", async () => {
    const store = await writtenStore("shred");
    const file = keysFile("shred-keys", OLD, [OLD]);
    const owners = join(directory, "shred-keys", "owner-keys");

    const kept = await skeinOk(["erase", "--owner", "ana", "--keep-keys", "--keys-file", file], { store });
    expect(kept).toMatch(
      /^erased 1 thread of "ana": 2 messages, \d+ bytes \(deleted\)\nowner's keys kept: --keep-keys\n$/,
    );
    expect(existsSync(join(owners, "ana.json"))).toBe(true);

    const shredded = await skein(["shred", "--owner", "Ben/tenant-b", "--json", "--keys-file", file], {
      store,
    });
    expect(shredded.code, shredded.stderr).toBe(0);
    expect(JSON.parse(shredded.stdout)).toEqual({ owner: "Ben/tenant-b", method: "crypto-shredded" });
    expect(existsSync(join(owners, FILE_NAMES["Ben/tenant-b"] as string))).toBe(false);
    const unreadable = await skein(["show", "Ben-tenant-b-1", "--keys-file", file], { store });
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toContain("crypto-shredded");
    // Still listed, with what is stored in clear.
    expect(await skeinOk(["ls", "--keys-file", file], { store })).toContain("Ben-tenant-b-1");

    // A keys file without owners cannot shred anyone: refused, nothing changed.
    const shared = join(directory, "shred-keys", "shared.json");
    writeFileSync(shared, JSON.stringify({ current: OLD, keys: base64([OLD], "") }));
    const refused = await skein(["shred", "--owner", "ana", "--keys-file", shared], { store });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("does not seal each owner's threads with a key of theirs");
    expect(existsSync(join(owners, "ana.json"))).toBe(true);
  });

  it("on Redis, in a scope: rekeys every owner's threads, and erase keeps the keys other scopes may need", async () => {
    const scope = `owner-keys-${Date.now().toString(36)}`;
    const store = await writtenStore("redis", inject("redisUrl"), scope);
    const rotated = keysFile("redis-keys", NEW, [OLD, NEW]);
    const run = (args: string[]) => skein([...args, "--scope", scope, "--keys-file", rotated], { store });
    const rekeyed = await run(["rekey", "--json"]);
    expect(rekeyed.code, rekeyed.stderr).toBe(0);
    expect(JSON.parse(rekeyed.stdout)).toMatchObject({
      current: NEW,
      records: 3,
      complete: true,
      remaining: {},
    });
    const newOnly = keysFile("redis-new-keys", NEW, [NEW]);
    expect(await skeinOk(["show", "ana-1", "--scope", scope, "--keys-file", newOnly], { store })).toContain(
      "ana-1 answers",
    );
    const erased = await run(["erase", "--owner", "ana", "--json"]);
    expect(erased.code, erased.stderr).toBe(0);
    expect(JSON.parse(erased.stdout)).toMatchObject({ method: "deleted", threads: 1 });
    expect(JSON.parse(erased.stdout).keyKept).toContain("scope");
    expect(existsSync(join(directory, "redis-keys", "owner-keys", "ana.json"))).toBe(true);
  });
});
