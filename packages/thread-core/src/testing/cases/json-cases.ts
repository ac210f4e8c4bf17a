import { MAX_CHECKPOINT_LABEL } from "../../checkpoint-label.js";
import { InvalidMessageError, InvalidThreadStateError } from "../../errors.js";
import type { Thread } from "../../thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

/** The nesting limit README and RELIABILITY.md document (`MAX_JSON_DEPTH`), counted in the thread's export. */
const DOCUMENTED_DEPTH = 200;

/** `{ a: { a: … { a: leaf } } }`, `levels` objects deep, built without recursion. */
function nested(levels: number, leaf: unknown = 1): Record<string, unknown> {
  let value: unknown = leaf;
  for (let level = 0; level < levels; level++) value = { a: value };
  return value as Record<string, unknown>;
}

/** Values JavaScript can hold that JSON cannot carry unchanged, each with what the error must point at. */
function hostileValues(): Array<[string, Record<string, unknown>, string]> {
  const cycle: Record<string, unknown> = { name: "loop" };
  cycle.self = cycle;
  const shared = { tag: 1 };
  return [
    // As JSON.parse makes it: an own `__proto__` key.
    ["a __proto__ key", JSON.parse('{"fine":1,"inner":{"__proto__":{"polluted":true}}}'), "inner"],
    ["100,000 levels of nesting", { deep: nested(100_000) }, "deep"],
    ["a cycle", { loop: cycle }, "loop"],
    ["a BigInt", { big: 10n }, "big"],
    ["Infinity", { far: Number.POSITIVE_INFINITY }, "far"],
    ["NaN", { odd: Number.NaN }, "odd"],
    ["a function", { call: () => 1 }, "call"],
    ["a Date (not a plain object)", { at: new Date(0) }, "at"],
    ["a hole in an array", { list: [1, undefined, 3] }, "list"],
    ["one object twice", { left: shared, right: shared }, ""],
  ];
}

/**
 * Issue 18, point 4: one JSON rule at every door (create, update, fork, append, save, import), so nothing a
 * store accepts fails to export, or comes back from its export refused or changed.
 */
export function jsonCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "create, update and fork refuse metadata or context that JSON cannot carry, naming the path; nothing is written",
    async () => {
      const thread = await context.store.create({ id: "kept", metadata: { ok: true } });
      for (const [name, value, key] of hostileValues()) {
        for (const field of ["metadata", "context"] as const) {
          const path = `at ${field}${key ? `.${key}` : ""}`;
          const created = await caught(context.store.create({ id: "refused", [field]: value }));
          expect(InvalidThreadStateError.isInstance(created), `create ${field}: ${name}: ${created}`).toBe(
            true,
          );
          expect(created.message, `create ${field}: ${name}`).toContain(path);
          const updated = await caught(thread.update({ [field]: value }));
          expect(InvalidThreadStateError.isInstance(updated), `update ${field}: ${name}: ${updated}`).toBe(
            true,
          );
          expect(updated.message, `update ${field}: ${name}`).toContain(path);
        }
        // A fork takes metadata only (it copies the parent's context, which passed this door when it was set).
        const forked = await caught(thread.fork({ id: "refused", metadata: value }));
        expect(InvalidThreadStateError.isInstance(forked), `fork metadata: ${name}: ${forked}`).toBe(true);
        expect(forked.message, `fork metadata: ${name}`).toContain(`at metadata${key ? `.${key}` : ""}`);
      }
      const notObject = await caught(context.store.create({ metadata: [1, 2] as never }));
      expect(InvalidThreadStateError.isInstance(notObject)).toBe(true);
      expect((await context.store.list()).items.map((item) => item.id)).toEqual(["kept"]);
      const fresh = await context.store.get("kept");
      expect(fresh.revision).toBe(0);
      expect(fresh.metadata).toEqual({ ok: true });
      // An absent (undefined) property is left out, as JSON.stringify does; that is no change of meaning.
      await thread.update({ metadata: { ok: false, note: undefined } });
      expect((await context.store.get("kept")).metadata).toEqual({ ok: false });
    },
    60_000,
  );

  conformanceCase(
    context,
    "append refuses message contents or metadata that JSON cannot carry, naming the path",
    async () => {
      const thread = await context.store.create({ id: "messages" });
      for (const [name, value] of hostileValues()) {
        const inMetadata = await caught(thread.append({ role: "user", text: "x", metadata: value as never }));
        expect(InvalidMessageError.isInstance(inMetadata), `${name}: ${inMetadata}`).toBe(true);
        expect(inMetadata.message, name).toContain("at metadata");
        const inContents = await caught(
          thread.append({
            role: "tool",
            contents: [{ type: "function_result", callId: "c", result: value }],
          } as never),
        );
        expect(InvalidMessageError.isInstance(inContents), `${name}: ${inContents}`).toBe(true);
        expect(inContents.message, name).toContain("at contents[0].result");
      }
      expect(await thread.messages()).toEqual([]);
    },
    60_000,
  );

  conformanceCase(
    context,
    "the deepest metadata and message a store accepts come back through export and import",
    async () => {
      // The deepest nesting each door takes, found by trying: one level more is refused.
      let metadataLevels = 210;
      let thread: Thread | undefined;
      for (; ; metadataLevels--) {
        thread = await context.store
          .create({ id: "deep", metadata: { deep: nested(metadataLevels) } })
          .catch((error: unknown) => {
            if (!InvalidThreadStateError.isInstance(error)) throw error;
            return undefined;
          });
        if (thread) break;
      }
      // Counted where the value sits in the export: the export 0, metadata 1, `deep` 2, so the innermost of
      // `metadataLevels` objects at 1 + metadataLevels, which must stay below the limit.
      expect(metadataLevels).toBe(DOCUMENTED_DEPTH - 2);
      let messageLevels = 210;
      for (; ; messageLevels--) {
        const metadata = { deep: nested(messageLevels) } as never;
        const appended = await thread
          .append({ id: "m", role: "user", text: "deep", metadata })
          .catch((error: unknown) => {
            if (!InvalidMessageError.isInstance(error)) throw error;
            return undefined;
          });
        if (appended) break;
      }
      // A message sits 4 levels down in an export (export, segments, a segment, its messages), its metadata 5.
      expect(messageLevels).toBe(DOCUMENTED_DEPTH - 6);
      const text = JSON.stringify(await context.store.export("deep"));
      const copy = await context.store.import(JSON.parse(text), { id: "deep-copy" });
      expect(copy.metadata).toEqual(thread.metadata);
      expect(await copy.messages()).toEqual(await thread.messages());
    },
    60_000,
  );

  conformanceCase(
    context,
    "checkpoint refuses a label that is not a string or is too long, before anything is written",
    async () => {
      const thread = await context.store.create({ id: "labels" });
      await thread.append({ id: "m", role: "user", text: "hello" });
      const workflow = await context.store.create("workflow", { id: "labels-workflow", threads: ["main"] });
      for (const target of [thread, workflow]) {
        const revision = target.revision;
        for (const label of [123, { a: 1 }, 10n, null, "x".repeat(MAX_CHECKPOINT_LABEL + 1)]) {
          const error = await caught(target.checkpoint(label as never));
          expect(InvalidThreadStateError.isInstance(error), `${target.type} ${String(label)}: ${error}`).toBe(
            true,
          );
          expect(error.message).toContain("checkpoint.label");
        }
        expect((await target.history()).filter((event) => event.kind === "checkpoint")).toEqual([]);
        await target.refresh();
        expect(target.revision).toBe(revision);
        await target.checkpoint("x".repeat(MAX_CHECKPOINT_LABEL));
      }
      // What was accepted comes back through export and import.
      const copy = await context.store.import(
        JSON.parse(JSON.stringify(await context.store.export("labels"))),
        {
          id: "labels-copy",
        },
      );
      expect((await copy.history()).filter((event) => event.kind === "checkpoint")).toHaveLength(1);
    },
  );

  conformanceCase(context, "import and save refuse what JSON cannot carry, with the same rule", async () => {
    const source = await context.store.create({ id: "source" });
    await source.append({ id: "m", role: "user", text: "hello" });
    const exported = JSON.parse(JSON.stringify(await context.store.export("source")));
    const withProto = { ...exported, metadata: JSON.parse('{"__proto__":{"polluted":true}}') };
    const proto = await caught(context.store.import(withProto, { id: "proto" }));
    expect(InvalidThreadStateError.isInstance(proto), String(proto)).toBe(true);
    const deep = { ...exported, metadata: { deep: nested(100_000) } };
    expect(InvalidThreadStateError.isInstance(await caught(context.store.import(deep, { id: "deep" })))).toBe(
      true,
    );
    // A thread of another kind whose state holds a number JSON cannot write: save refuses it.
    const stateless = {
      id: "visitor",
      type: "memory",
      toJSON: () => ({ ...exported, id: "visitor", metadata: { far: Number.POSITIVE_INFINITY } }),
    } as unknown as Thread;
    const saved = await caught(context.store.save(stateless));
    expect(InvalidThreadStateError.isInstance(saved), String(saved)).toBe(true);
    expect((await context.store.list()).items.map((item) => item.id)).toEqual(["source"]);
  });
}
