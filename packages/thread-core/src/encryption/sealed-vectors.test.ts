import { describe, expect, it } from "vitest";
import type { Message } from "../message.js";
import { KeyRing } from "./key-ring.js";
import { RecordCodec } from "./record-codec.js";
import { checkEnd, type RecordEnd, sealEnd } from "./record-end.js";

// Units and ends sealed by the code before keys were held as KeyObjects (main b854707), with a fixed key:
// the format must not move, so what older versions stored still opens and what this one seals matches it.
const keyBytes = Uint8Array.from({ length: 32 }, (_, index) => index * 7 + 3);
const plain: Message = {
  id: "m-vector",
  role: "assistant",
  createdAt: "2026-12-06T10:00:00.000Z",
  contents: [{ type: "text", text: "vector \u2713 text" }],
  metadata: { n: 1 },
};
const end: RecordEnd = {
  id: "t-vector",
  createdAt: "2026-12-06T09:00:00.000Z",
  head: "seg-vector",
  length: 8,
};
const sealedByOld = {
  id: "m-vector",
  role: "assistant",
  createdAt: "2026-12-06T10:00:00.000Z",
  contents: [
    {
      type: "skein.sealed",
      $sealed: 1,
      key: "2026-12",
      check: "FwDfi3JA4VA",
      nonce: "TzXmRG51Oqjzj+/S",
      data: "l2tOtSjD8c2TlJYQZ2vUrinCuC2gBI7EMT8wk6V2PoZslw9W3tUiCOqVM5RyaHvStwaOxrguRo1NZdVVtpk9hSs/WndmAj0Trrw=",
      tag: "hN2fNHvNjaZ+Fjatt+43dA==",
    },
  ],
} as unknown as Message;
const endByOld = {
  key: "2026-12",
  check: "FwDfi3JA4VA",
  mac: "NotsSv_d6KWTwuY5q6sgzQ6x0eGqzaNBdET8vBzVuPo",
};
const sealedOwnedByOld = {
  id: "m-vector",
  role: "assistant",
  createdAt: "2026-12-06T10:00:00.000Z",
  contents: [
    {
      type: "skein.sealed",
      $sealed: 1,
      key: "2026-12",
      owner: "ana",
      check: "FwDfi3JA4VA",
      nonce: "Moa7aMVOdExxe/Qw",
      data: "yYi6/cd+FDwz04T9yt9zgwHdZCj2UQ66dtOCgmAR1YHhhrI6XrlAqlHWAxiZY9Ll+TazrAruuusv+1H0GOZ5bmQeRq5uLlw4Sqk=",
      tag: "fbVarIlxvqXtG4mBeIvIXA==",
    },
  ],
} as unknown as Message;
const endOwnedByOld = {
  key: "2026-12",
  owner: "ana",
  check: "FwDfi3JA4VA",
  mac: "OcO4bxtHsSnkidGUImRnE4XeeiOga9dc4bqEqrbNaL0",
};

function storeKeys(): KeyRing {
  return new KeyRing({ keys: { "2026-12": keyBytes }, current: "2026-12" });
}

function ownerKeys(): KeyRing {
  return new KeyRing({ ownerKeyProvider: () => keyBytes, current: "2026-12" });
}

describe("sealed units keep the format older versions wrote", () => {
  it("seal a message and its end to the same bytes", async () => {
    const ring = storeKeys();
    const sealed = await new RecordCodec(ring, true).sealMessage(plain, "seg-vector", 7);
    expect(sealed).toEqual(sealedByOld);
    // Byte for byte, key order included: a store compares a retried message's JSON with the one it holds.
    expect(JSON.stringify(sealed)).toBe(JSON.stringify(sealedByOld));
    expect(sealEnd(end, await ring.key("2026-12"))).toEqual(endByOld);
    const owned = ownerKeys();
    const owner = await new RecordCodec(owned, true).sealMessage(plain, "seg-vector", 7, "ana");
    expect(JSON.stringify(owner)).toBe(JSON.stringify(sealedOwnedByOld));
    expect(sealEnd(end, await owned.key("2026-12", "ana"))).toEqual(endOwnedByOld);
  });

  it("open what older versions sealed", async () => {
    // Fresh rings: nothing is served from the opened-messages cache, every unit is decrypted.
    expect(await new RecordCodec(storeKeys(), true).openMessage(sealedByOld, "seg-vector", 7)).toEqual(plain);
    expect(await new RecordCodec(ownerKeys(), true).openMessage(sealedOwnedByOld, "seg-vector", 7)).toEqual(
      plain,
    );
    await expect(checkEnd(endByOld, end, storeKeys(), false)).resolves.toBeUndefined();
    await expect(checkEnd(endOwnedByOld, end, ownerKeys(), false)).resolves.toBeUndefined();
    await expect(checkEnd(endByOld, { ...end, length: 7 }, storeKeys(), false)).rejects.toThrow(/cut/);
  });
});
