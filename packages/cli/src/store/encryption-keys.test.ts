import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidConfigError } from "../cli/config-errors.js";
import { InvalidKeysFileError } from "../cli/keys-file-error.js";
import { readEncryptionKeys } from "./encryption-keys.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-keys-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const key = randomBytes(32);
const encoded = key.toString("base64");

let files = 0;
function keysFile(content: unknown): string {
  const file = join(directory, `keys-${files++}.json`);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

function refusal(file: string): InvalidKeysFileError {
  try {
    readEncryptionKeys(file, {});
  } catch (error) {
    if (InvalidKeysFileError.isInstance(error)) return error as InvalidKeysFileError;
    throw error;
  }
  throw new Error(`${file} was taken`);
}

type OwnerProvider = (request: {
  owner: string | undefined;
  keyId: string;
}) => Promise<Uint8Array | undefined>;

describe("readEncryptionKeys", () => {
  it("keeps the format without owners: keys by id and the current one", () => {
    const options = readEncryptionKeys(keysFile({ current: "k1", keys: { k1: encoded } }), {}) as {
      current: string;
      keys: Record<string, Uint8Array>;
    };
    expect(options.current).toBe("k1");
    expect(Object.keys(options.keys)).toEqual(["k1"]);
    expect(Buffer.from(options.keys.k1 ?? [])).toEqual(key);
    expect("ownerKeyProvider" in options).toBe(false);
  });

  it("with owners, answers each owner from their file, threads without one from keys, and none for others", async () => {
    const home = join(directory, "home");
    mkdirSync(join(home, "owners"), { recursive: true });
    const anas = randomBytes(32);
    writeFileSync(
      join(home, "owners", "ana.json"),
      JSON.stringify({ owner: "ana", keys: { k1: anas.toString("base64") } }),
    );
    const file = join(home, "keys.json");
    writeFileSync(file, JSON.stringify({ current: "k1", keys: { k1: encoded }, owners: "owners" }));
    const options = readEncryptionKeys(file, {}) as { ownerKeyProvider: OwnerProvider };
    expect(Buffer.from((await options.ownerKeyProvider({ owner: "ana", keyId: "k1" })) ?? [])).toEqual(anas);
    expect(Buffer.from((await options.ownerKeyProvider({ owner: undefined, keyId: "k1" })) ?? [])).toEqual(
      key,
    );
    expect(await options.ownerKeyProvider({ owner: "ben", keyId: "k1" })).toBeUndefined();
    expect(await options.ownerKeyProvider({ owner: "ana", keyId: "k0" })).toBeUndefined();
    // A key id that names a property of every object is a key id like any other: none here.
    expect(await options.ownerKeyProvider({ owner: undefined, keyId: "constructor" })).toBeUndefined();
    expect(await options.ownerKeyProvider({ owner: "ana", keyId: "__proto__" })).toBeUndefined();
  });

  it("with owners, keys may be left out: threads without an owner then have none", async () => {
    const options = readEncryptionKeys(keysFile({ current: "k1", owners: "nowhere" }), {}) as {
      ownerKeyProvider: OwnerProvider;
    };
    expect(await options.ownerKeyProvider({ owner: undefined, keyId: "k1" })).toBeUndefined();
  });

  it.each([
    ["not JSON", `{ "current": "k1", "keys": { "k1": "${encoded}" `, "", "is not JSON"],
    ["an array", [], "", "expected {"],
    ["no current", { keys: { k1: encoded } }, "current", "must name the key"],
    ["current not among keys", { current: "k2", keys: { k1: encoded } }, "current", "does not hold"],
    ["keys not an object", { current: "k1", keys: [encoded] }, "keys", "must be an object"],
    [
      "a short key",
      { current: "k1", keys: { k1: randomBytes(31).toString("base64") } },
      'keys["k1"]',
      "32 bytes",
    ],
    ["a key not base64", { current: "k1", keys: { k1: `${encoded.slice(1)}!` } }, 'keys["k1"]', "32 bytes"],
    [
      "owners not a path",
      { current: "k1", keys: { k1: encoded }, owners: { ana: {} } },
      "owners",
      "directory",
    ],
    ["a misspelt field", { current: "k1", keys: { k1: encoded }, owner: "dir" }, '"owner"', "is not one of"],
  ])("refuses %s, naming the file and the field, never a key", (_case, content, field, detail) => {
    const file = keysFile(content);
    const error = refusal(file);
    expect(error.file).toBe(file);
    expect(error.field).toBe(field);
    expect(error.message).toContain(`keys file ${file} cannot be used`);
    expect(error.message).toContain(detail);
    expect(error.message).not.toContain(encoded);
    expect(error.message).not.toContain(encoded.slice(1, 20));
    expect(InvalidConfigError.isInstance(error)).toBe(true);
    expect(error.exitCode).toBe(5);
  });

  it("a keys file that is not there exits as a missing input file, naming it", () => {
    const error = refusal(join(directory, "missing.json"));
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain("missing.json cannot be used: it cannot be read");
  });
});
