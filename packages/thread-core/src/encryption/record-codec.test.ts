import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import type { LogRecord } from "../local/log-driver.js";
import type { Message } from "../message.js";
import { DecryptionError, IntegrityError, KeyNotFoundError } from "./encryption-errors.js";
import { KeyRing } from "./key-ring.js";
import { RecordCodec } from "./record-codec.js";
import type { SealedUnit } from "./sealed-unit.js";

const key = randomBytes(32);
const codec = new RecordCodec(new KeyRing({ keys: { "2026-12": key }, current: "2026-12" }));

function message(id: string, text: string, role: Message["role"] = "user"): Message {
  return { id, role, createdAt: "2026-12-05T10:00:00.000Z", contents: [{ type: "text", text }] };
}

function unitOf(stored: Message): SealedUnit {
  return stored.contents[0] as unknown as SealedUnit;
}

async function sealedSegment(segment: string, texts: string[]): Promise<Message[]> {
  return Promise.all(
    texts.map((text, offset) => codec.sealMessage(message(`m${offset}`, text), segment, offset)),
  );
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("sealed messages", () => {
  it("round-trip, and keep no plaintext in what is stored", async () => {
    const original = {
      ...message("m0", "PLAIN-MARKER"),
      authorName: "ana",
      metadata: { secret: "PLAIN-MARKER" },
    };
    const stored = await codec.sealMessage(original, "s1", 0);
    expect(JSON.stringify(stored)).not.toContain("PLAIN-MARKER");
    expect(JSON.stringify(stored)).not.toContain("ana");
    expect(stored).toMatchObject({ id: "m0", role: "user", createdAt: original.createdAt });
    expect(await codec.openMessage(stored, "s1", 0)).toEqual(original);
  });

  it("two units swapped between messages fail with IntegrityError", async () => {
    const [first, second] = (await sealedSegment("s1", ["one", "two"])) as [Message, Message];
    const swapped = [
      { ...first, contents: second.contents },
      { ...second, contents: first.contents },
    ];
    for (const [offset, stored] of swapped.entries()) {
      expect(IntegrityError.isInstance(await failure(codec.openMessage(stored, "s1", offset)))).toBe(true);
    }
    // Whole stored messages swapped (ids with their units): each is now at another offset.
    for (const [offset, stored] of [second, first].entries()) {
      expect(IntegrityError.isInstance(await failure(codec.openMessage(stored, "s1", offset)))).toBe(true);
    }
  });

  it("a message cut from the middle of a segment makes the next one fail with IntegrityError", async () => {
    const stored = await sealedSegment("s1", ["zero", "one", "two"]);
    const cut = [stored[0], stored[2]] as Message[];
    expect(await codec.openMessage(cut[0] as Message, "s1", 0)).toMatchObject({ id: "m0" });
    expect(IntegrityError.isInstance(await failure(codec.openMessage(cut[1] as Message, "s1", 1)))).toBe(
      true,
    );
  });

  it("a flipped byte in the ciphertext, tag or nonce fails with IntegrityError", async () => {
    const [stored] = (await sealedSegment("s1", ["hello"])) as [Message];
    for (const field of ["data", "tag", "nonce"] as const) {
      const unit = { ...unitOf(stored) };
      const bytes = Buffer.from(unit[field], "base64");
      bytes[0] = (bytes[0] as number) ^ 0x01;
      unit[field] = bytes.toString("base64");
      const flipped = { ...stored, contents: [unit as unknown as Message["contents"][number]] };
      const error = await failure(codec.openMessage(flipped, "s1", 0));
      expect(IntegrityError.isInstance(error), `${field}: ${error}`).toBe(true);
    }
  });

  it("an old unit replayed at a new position (another segment, offset or role) fails with IntegrityError", async () => {
    const [old] = (await sealedSegment("s1", ["yesterday"])) as [Message];
    expect(IntegrityError.isInstance(await failure(codec.openMessage(old, "s2", 0)))).toBe(true);
    expect(IntegrityError.isInstance(await failure(codec.openMessage(old, "s1", 5)))).toBe(true);
    const promoted = { ...old, role: "system" as const };
    expect(IntegrityError.isInstance(await failure(codec.openMessage(promoted, "s1", 0)))).toBe(true);
    const renamed = { ...old, id: "m9" };
    expect(IntegrityError.isInstance(await failure(codec.openMessage(renamed, "s1", 0)))).toBe(true);
  });

  it("plaintext put where a sealed message belongs fails with IntegrityError", async () => {
    const error = await failure(codec.openMessage(message("m0", "forged"), "s1", 0));
    expect(IntegrityError.isInstance(error)).toBe(true);
  });

  it("sealing the same message at the same place gives the same unit, so a re-import compares equal", async () => {
    const again = await codec.sealMessage(message("m0", "same"), "s1", 0);
    expect(await codec.sealMessage(message("m0", "same"), "s1", 0)).toEqual(again);
    expect(await codec.sealMessage(message("m0", "other"), "s1", 0)).not.toEqual(again);
  });
});

describe("sealed records", () => {
  const record: LogRecord = {
    kind: "log",
    id: "t1",
    type: "memory",
    createdAt: "2026-12-05T10:00:00.000Z",
    updatedAt: "2026-12-05T10:00:00.000Z",
    revision: 3,
    metadata: { topic: "PLAIN-MARKER" },
    context: { $catalogue: { owner: "u-7", title: "PLAIN-MARKER" }, memory: { facts: ["PLAIN-MARKER"] } },
    head: "s1",
    length: 0,
    events: [
      {
        kind: "checkpoint",
        at: "2026-12-05T10:00:00.000Z",
        revision: 2,
        checkpoint: {
          id: "cp1",
          label: "PLAIN-MARKER",
          threadId: "t1",
          point: { segment: "s1", offset: 0, position: 0 },
          createdAt: "2026-12-05T10:00:00.000Z",
        },
      } as LogRecord["events"][number],
    ],
  };
  const openEvents = (id: string) => (events: LogRecord["events"]) =>
    Promise.all(events.map((event) => codec.openEvent(id, event)));

  it("round-trip with only the owner, ids, revisions and timestamps clear", async () => {
    const sealed = await codec.sealLog(record);
    expect(JSON.stringify(sealed)).not.toContain("PLAIN-MARKER");
    expect(sealed.context.$catalogue).toEqual({ owner: "u-7" });
    expect(await codec.openRecord(sealed, openEvents("t1"))).toEqual(record);
  });

  it("metadata, context or a label moved to another record fails with IntegrityError", async () => {
    const sealed = await codec.sealLog(record);
    const moved = { ...sealed, id: "t2" };
    expect(IntegrityError.isInstance(await failure(codec.openRecord(moved, openEvents("t2"))))).toBe(true);
    const onlyLabel = { ...(await codec.sealLog({ ...record, id: "t2" })), events: sealed.events };
    expect(IntegrityError.isInstance(await failure(codec.openRecord(onlyLabel, openEvents("t2"))))).toBe(
      true,
    );
    const swapped = { ...sealed, metadata: { $sealed: (sealed.context as { $sealed: unknown }).$sealed } };
    expect(IntegrityError.isInstance(await failure(codec.openRecord(swapped, openEvents("t1"))))).toBe(true);
  });
});

describe("keys", () => {
  it("a unit sealed under another key of the same id is a DecryptionError naming the id, never the key", async () => {
    const [stored] = (await sealedSegment("s1", ["hello"])) as [Message];
    const other = randomBytes(32);
    const wrong = new RecordCodec(new KeyRing({ keys: { "2026-12": other }, current: "2026-12" }));
    const error = await failure(wrong.openMessage(stored, "s1", 0));
    expect(DecryptionError.isInstance(error)).toBe(true);
    expect((error as DecryptionError).keyId).toBe("2026-12");
    for (const material of [key, other]) {
      for (const text of [String(error), inspect(error, { depth: 10 }), JSON.stringify(error)]) {
        expect(text).not.toContain(material.toString("hex"));
        expect(text).not.toContain(material.toString("base64"));
      }
    }
  });

  it("a unit whose key is not listed is a KeyNotFoundError naming the id; a provider is asked once", async () => {
    const [stored] = (await sealedSegment("s1", ["hello"])) as [Message];
    const elsewhere = new RecordCodec(
      new KeyRing({ keys: { "2027-06": randomBytes(32) }, current: "2027-06" }),
    );
    const error = await failure(elsewhere.openMessage(stored, "s1", 0));
    expect(KeyNotFoundError.isInstance(error)).toBe(true);
    expect((error as KeyNotFoundError).keyId).toBe("2026-12");
    const asked: string[] = [];
    const provided = new RecordCodec(
      new KeyRing({
        current: "2026-12",
        keyProvider: async (keyId) => {
          asked.push(keyId);
          return keyId === "2026-12" ? key : undefined;
        },
      }),
    );
    expect(await provided.openMessage(stored, "s1", 0)).toMatchObject({ id: "m0" });
    expect(await provided.openMessage(stored, "s1", 0)).toMatchObject({ id: "m0" });
    expect(asked).toEqual(["2026-12"]);
  });

  it("a key of the wrong length is refused when the store opens, without showing it", () => {
    const short = randomBytes(16);
    let error: unknown;
    try {
      new KeyRing({ keys: { k: short }, current: "k" });
    } catch (thrown) {
      error = thrown;
    }
    expect(String(error)).toContain("32 bytes");
    expect(String(error)).not.toContain(short.toString("hex"));
  });

  it("neither inspect nor JSON of a key ring shows key material", () => {
    const ring = new KeyRing({ keys: { "2026-12": key }, current: "2026-12" });
    for (const text of [inspect(ring, { depth: 10, showHidden: true }), JSON.stringify(ring)]) {
      expect(text).not.toContain(key.toString("hex"));
      expect(text).not.toContain(key.toString("base64"));
      expect(text).not.toMatch(/Buffer|Uint8Array/);
    }
  });
});
