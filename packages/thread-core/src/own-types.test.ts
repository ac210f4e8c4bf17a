import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contextOf, defineContextProvider, withContextProviders } from "./context-provider.js";
import { createRegistry } from "./create-registry.js";
import {
  InvalidThreadStateError,
  InvalidTypeDefinitionError,
  ThreadTypeClashError,
  UnknownThreadTypeError,
} from "./errors.js";
import type { ThreadRunner } from "./runner.js";
import { defineStateType, stateOf } from "./state-type.js";
import { openStore } from "./store/open-store.js";
import { defineThreadType, type ThreadState, ThreadStateSchema } from "./thread-type.js";

const memoryState = defineStateType({
  type: "acme.memory",
  version: 2,
  schema: z.object({ facts: z.array(z.string()) }),
  migrations: { 1: ({ fact, ...v1 }) => ({ ...v1, facts: [fact] }) },
});
const noteState = defineStateType({
  type: "acme.note",
  schema: z.object({ text: z.string().min(1) }),
});
const ticketType = defineThreadType({
  type: "acme.ticket",
  schema: ThreadStateSchema.extend({ subject: z.string(), notes: z.array(stateOf(noteState)) }),
});

function registry() {
  return createRegistry().register(memoryState).register(noteState).register(ticketType);
}

function caught(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

describe("registering your own types", () => {
  it("refuses ids of skein's own types and namespaces, and another package's namespace", () => {
    const schema = ThreadStateSchema;
    for (const type of ["redis", "fs", "openai.mine", "foundry.x", "skein.mine", "thread-service.lease"]) {
      const error = caught(() => createRegistry().register(defineThreadType({ type, schema })));
      expect(ThreadTypeClashError.isInstance(error)).toBe(true);
      expect(error.message).toContain("namespace of your own");
    }
    const owned = createRegistry().register(
      defineThreadType({ type: "acme.order", schema, packageName: "@acme/orders" }),
    );
    const clash = caught(() =>
      owned.register(defineThreadType({ type: "acme.refund", schema, packageName: "@other/refunds" })),
    );
    expect(ThreadTypeClashError.isInstance(clash)).toBe(true);
    expect(clash.message).toContain("@acme/orders");
    // The same package, and the application's own types side by side, are fine.
    owned.register(defineThreadType({ type: "acme.invoice", schema, packageName: "@acme/orders" }));
    registry().register(defineStateType({ type: "acme.other", schema: z.object({}) }));
  });

  it("takes ids that are names of Object.prototype's members as any other, in any namespace", () => {
    const schema = ThreadStateSchema;
    const registry = createRegistry();
    for (const type of ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty"]) {
      registry.register(defineThreadType({ type, schema }));
      registry.register(defineThreadType({ type: `${type}.x`, schema }));
    }
    expect(registry.get("constructor.x")?.type).toBe("constructor.x");
    // An unknown type with such an id names no package to install.
    const unknown = caught(() => createRegistry().parse({ $type: "toString", id: "t" }));
    expect(UnknownThreadTypeError.isInstance(unknown)).toBe(true);
    expect(unknown.message).not.toContain("function");
  });

  it("refuses a definition without a type id, or with a version that is not a positive integer, with a typed error", () => {
    const schema = ThreadStateSchema;
    const definitions = [
      () => defineThreadType({ type: "", schema }),
      () => defineThreadType({ type: 5 as never, schema }),
      () => defineThreadType({ type: "acme.v", version: 0, schema }),
      () => defineThreadType({ type: "acme.v", version: 1.5, schema }),
      () => defineThreadType({ type: "acme.v", version: 2, schema }),
      () => defineStateType({ type: "", schema: z.object({}) }),
      () => defineThreadType({ type: "acme.v", schema, local: true, bind: () => ({}) as never }),
    ];
    for (const define of definitions) {
      const error = caught(define);
      expect(InvalidTypeDefinitionError.isInstance(error), String(error)).toBe(true);
      expect(error.message).toMatch(/^\[thread-core\] /);
    }
  });

  it("a nested state type is not a thread", () => {
    const error = caught(() => registry().parse({ $type: "acme.memory", facts: [] }));
    expect(InvalidThreadStateError.isInstance(error)).toBe(true);
    expect(error.message).toContain("nested state type");
  });
});

describe("nested states", () => {
  const thread = (context: Record<string, unknown>, notes: unknown[] = []) => ({
    $type: "acme.ticket",
    id: "t1",
    subject: "s",
    notes,
    context,
  });

  it("are migrated wherever they sit in the context, and in stateOf fields", () => {
    const parsed = registry().parse(
      thread(
        {
          memory: { $type: "acme.memory", fact: "tea" },
          deep: { list: [1, { $type: "acme.note", text: "x" }] },
        },
        [{ $type: "acme.note", text: "call" }],
      ),
    ) as ThreadState;
    expect(parsed.context).toEqual({
      memory: { $type: "acme.memory", $v: 2, facts: ["tea"] },
      deep: { list: [1, { $type: "acme.note", $v: 1, text: "x" }] },
    });
    expect(parsed.notes).toEqual([{ $type: "acme.note", $v: 1, text: "call" }]);
  });

  it("errors name the path, and an unknown type throws unless preserved byte-equal", () => {
    const invalid = caught(() =>
      registry().parse(thread({ memory: { $type: "acme.memory", $v: 2, facts: ["a", "b", 3] } })),
    ) as InvalidThreadStateError;
    expect(invalid.path).toEqual(["context", "memory", "facts", 2]);
    expect(invalid.message).toContain("context.memory.facts[2]");
    const badNote = caught(() => registry().parse(thread({}, [{ $type: "acme.note", text: "" }])));
    expect((badNote as InvalidThreadStateError).path).toEqual(["notes", 0, "text"]);
    const foreign = { $type: "other.state", b: [2, { y: 1, x: 2 }], a: "é" };
    const unknown = caught(() => registry().parse(thread({ foreign })));
    expect(UnknownThreadTypeError.isInstance(unknown)).toBe(true);
    const kept = registry().parse(thread({ foreign }), { unknown: "preserve" }) as ThreadState;
    expect(JSON.stringify(kept.context?.foreign)).toBe(JSON.stringify(foreign));
  });

  it("are in the JSON Schema, referenced by $type", () => {
    const schema = registry().jsonSchema() as {
      oneOf: unknown[];
      $defs: Record<string, Record<string, unknown>>;
    };
    // State types are definitions, not threads.
    expect(schema.oneOf).toHaveLength(3);
    expect(Object.keys(schema.$defs)).toEqual(
      expect.arrayContaining(["acme.memory", "acme.note", "acme.ticket", "$nested"]),
    );
    const ticket = schema.$defs["acme.ticket"] as { properties: Record<string, Record<string, unknown>> };
    expect(ticket.properties.notes?.items).toEqual({ anyOf: [{ $ref: "#/$defs/acme.note" }] });
    expect(ticket.properties.context).toEqual({
      type: "object",
      additionalProperties: { $ref: "#/$defs/$nested" },
    });
    expect(JSON.stringify(schema.$defs.$nested)).toContain('{"$ref":"#/$defs/acme.memory"}');
    // Every reference resolves from the root.
    for (const [, pointer] of JSON.stringify(schema).matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      let target: unknown = schema;
      for (const part of (pointer as string).split("/")) {
        target = (target as Record<string, unknown>)[part.replaceAll("~1", "/").replaceAll("~0", "~")];
      }
      expect(target, pointer).toBeTypeOf("object");
    }
  });
});

describe("a context provider with a state type", () => {
  const memory = defineContextProvider({
    name: "memory",
    stateType: memoryState,
    initialState: () => ({ facts: [] }),
    invoked: ({ state, messages }) => ({
      facts: [...(state?.facts ?? []), ...messages.map((message) => message.id)],
    }),
  });
  const runner: ThreadRunner = {
    specificationVersion: "v1",
    supports: () => true,
    run: (thread) => thread.append({ role: "assistant", text: "ok" }),
  };

  it("stores its state typed, migrated when read, and typed for the application", async () => {
    const store = await openStore("memory:", { registry: registry() });
    const thread = await store.create({
      id: "with-memory",
      context: { memory: { $type: "acme.memory", $v: 1, fact: "likes tea" } },
    });
    await thread.append({ id: "u1", role: "user", text: "hi" });
    await withContextProviders(runner, [memory]).run(thread);
    await thread.refresh();
    const { memory: state } = contextOf(thread, [memory]);
    const facts: string[] | undefined = state?.facts; // typed by the provider's state type
    expect(facts).toEqual(["likes tea", "u1"]);
    expect(state).toEqual({ $type: "acme.memory", $v: 2, facts: ["likes tea", "u1"] });
  });
});
