import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { LogRecord } from "../local/log-driver.js";
import { KeyRing } from "./key-ring.js";
import { RecordCodec } from "./record-codec.js";
import { oldRecordUnits, planRecordRewrite } from "./rekey-record.js";
import { CLEAR } from "./rekey-units.js";

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const before = new RecordCodec(new KeyRing({ keys: { old: oldKey }, current: "old" }));
const rotated = new RecordCodec(
  new KeyRing({ keys: { old: oldKey, new: newKey }, current: "new", allowPlaintext: true }),
);

function plainRecord(): LogRecord {
  return {
    kind: "log",
    id: "t1",
    type: "memory",
    createdAt: "2026-12-05T10:00:00.000Z",
    updatedAt: "2026-12-05T10:00:00.000Z",
    revision: 3,
    metadata: { topic: "rotation" },
    context: { $catalogue: { owner: "u-7" }, memory: { facts: ["tea"] } },
    head: "s1",
    length: 2,
    events: [],
  };
}

describe("planRecordRewrite", () => {
  it("moves only the fields an older key sealed: a context already current is left out, so appends cannot race it", async () => {
    const stored = await before.sealLog(plainRecord());
    // What an append under the new key leaves: the context (and its end) sealed anew, the metadata as it was.
    const appended = {
      ...stored,
      context: await rotated.withEnd(await rotated.sealContext("t1", plainRecord().context), stored),
    };
    expect(oldRecordUnits(appended, "new")).toEqual([{ key: "old" }]);
    const rewrite = await planRecordRewrite(rotated, appended, "new");
    expect(rewrite?.context).toBeUndefined();
    expect(rewrite?.metadata?.expected).toEqual(appended.metadata);
    const done = { ...appended, metadata: rewrite?.metadata?.replacement as Record<string, unknown> };
    expect(oldRecordUnits(done, "new")).toEqual([]);
    expect(await planRecordRewrite(rotated, done, "new")).toBeUndefined();
    const opened = (await rotated.openRecord(done, async (events) => events)) as LogRecord;
    expect(opened.metadata).toEqual({ topic: "rotation" });
  });

  it("seals a record stored in clear, and the end a clear context held is never sealed into it", async () => {
    // An append in the allowPlaintext window (before appends sealed the context) left the end beside it.
    const stored = plainRecord();
    const appended = { ...stored, context: await rotated.withEnd(stored.context, stored) };
    expect(oldRecordUnits(appended, "new")).toEqual([{ key: CLEAR }, { key: CLEAR }]);
    const opened = (await rotated.openRecord(appended, async (events) => events)) as LogRecord;
    expect(opened.context).toEqual(stored.context);
    const rewrite = await planRecordRewrite(rotated, appended, "new");
    const sealed = {
      ...appended,
      metadata: rewrite?.metadata?.replacement as Record<string, unknown>,
      context: rewrite?.context?.replacement as Record<string, unknown>,
    };
    expect(oldRecordUnits(sealed, "new")).toEqual([]);
    const strict = new RecordCodec(new KeyRing({ keys: { new: newKey }, current: "new" }));
    const reopened = (await strict.openRecord(sealed, async (events) => events)) as LogRecord;
    expect(reopened.context).toEqual(stored.context);
    expect(reopened.metadata).toEqual(stored.metadata);
  });
});
