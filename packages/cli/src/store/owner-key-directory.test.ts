import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidKeysFileError } from "../cli/keys-file-error.js";
import { OwnerKeyDirectory, ownerKeyFileName } from "./owner-key-directory.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-owner-dir-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const encoded = randomBytes(32).toString("base64");

async function refusal(promise: Promise<unknown>): Promise<InvalidKeysFileError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!InvalidKeysFileError.isInstance(error)) throw new Error(`not refused: ${String(error)}`);
  return error as InvalidKeysFileError;
}

describe("ownerKeyFileName", () => {
  it("keeps lowercase letters, digits, - and _, and escapes every other byte, uppercase included", () => {
    expect(ownerKeyFileName("u-7_a")).toBe("u-7_a.json");
    expect(ownerKeyFileName("Ana")).toBe("%41na.json");
    expect(ownerKeyFileName("ana")).not.toBe(ownerKeyFileName("Ana"));
    expect(ownerKeyFileName("..")).toBe("%2E%2E.json");
    expect(ownerKeyFileName("a/b\\c")).toBe("a%2Fb%5Cc.json");
    expect(ownerKeyFileName("é")).toBe("%C3%A9.json");
  });

  it("hashes an owner whose escaped name would be too long for a file system, keeping owners apart", () => {
    const long = "Ü".repeat(256);
    expect(ownerKeyFileName(long)).toMatch(/^~[0-9a-f]{64}\.json$/);
    expect(ownerKeyFileName(long)).not.toBe(ownerKeyFileName(`${long.slice(1)}ü`));
    expect(ownerKeyFileName("x".repeat(200))).toBe(`${"x".repeat(200)}.json`);
  });

  it("hashes an owner with a lone surrogate, which UTF-8 cannot tell from another", () => {
    expect(ownerKeyFileName("a\ud800")).toMatch(/^~[0-9a-f]{64}\.json$/);
    expect(ownerKeyFileName("a\ud800")).not.toBe(ownerKeyFileName("a\udc00"));
    // A pair is one character, escaped as its UTF-8 bytes.
    expect(ownerKeyFileName("a\ud83d\ude00")).toBe("a%F0%9F%98%80.json");
  });
});

describe("OwnerKeyDirectory", () => {
  const owners = new OwnerKeyDirectory(directory);

  it("reads an owner's keys from their file, and none for an owner without a file", async () => {
    writeFileSync(join(directory, "ana.json"), JSON.stringify({ owner: "ana", keys: { k1: encoded } }));
    expect(Buffer.from((await owners.keys("ana"))?.k1 ?? []).toString("base64")).toBe(encoded);
    expect(await owners.keys("nobody")).toBeUndefined();
  });

  it("refuses a file that says it is another owner's, or holds a bad key, naming the file and the field", async () => {
    const file = join(directory, "ben.json");
    writeFileSync(file, JSON.stringify({ owner: "ana", keys: { k1: encoded } }));
    const wrongOwner = await refusal(owners.keys("ben"));
    expect(wrongOwner).toMatchObject({ file, field: "owner" });
    expect(wrongOwner.message).toContain('"ben"');
    writeFileSync(file, JSON.stringify({ owner: "ben", keys: { k1: encoded.slice(4) } }));
    const short = await refusal(owners.keys("ben"));
    expect(short).toMatchObject({ file, field: 'keys["k1"]' });
    expect(short.message).not.toContain(encoded.slice(4));
    writeFileSync(file, `{ "owner": "ben", "keys": { "k1": "${encoded}" }`);
    const broken = await refusal(owners.keys("ben"));
    expect(broken).toMatchObject({ file, field: "" });
    expect(broken.message).not.toContain(encoded);
  });

  it("destroys an owner by removing their file; destroying again is no error", async () => {
    writeFileSync(join(directory, "cy.json"), JSON.stringify({ owner: "cy", keys: { k1: encoded } }));
    await owners.destroy("cy");
    expect(existsSync(join(directory, "cy.json"))).toBe(false);
    expect(await owners.keys("cy")).toBeUndefined();
    await owners.destroy("cy");
  });
});
