import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry, defaultRegistry } from "./create-registry.js";
import {
  DuplicateThreadTypeError,
  InvalidThreadStateError,
  SkeinError,
  UnknownThreadTypeError,
  UnsupportedVersionError,
} from "./errors.js";
import { OpaqueThreadState } from "./opaque-state.js";
import { parseThreadState } from "./parse-thread-state.js";
import { defineThreadType, ThreadStateSchema } from "./thread-type.js";

const TicketSchema = ThreadStateSchema.extend({
  title: z.string(),
  priority: z.enum(["low", "normal", "high"]),
  severity: z.number().int(),
});

const ticketType = defineThreadType({
  type: "acme.ticket",
  version: 3,
  schema: TicketSchema,
  migrations: {
    1: (v1) => ({ ...v1, priority: "normal" }),
    2: (v2) => ({ ...v2, severity: v2.priority === "high" ? 1 : 3 }),
  },
});

const WorkflowLikeSchema = ThreadStateSchema.extend({ threads: z.record(z.string(), z.unknown()) });
const holderType = defineThreadType({
  type: "acme.holder",
  schema: WorkflowLikeSchema,
  nested: (state, parseChild) => ({
    ...state,
    threads: Object.fromEntries(
      Object.entries(state.threads).map(([key, child]) => [key, parseChild(child, key)]),
    ),
  }),
});

describe("registry", () => {
  it("migrates older versions forward and stamps the current version", () => {
    const registry = createRegistry().register(ticketType);
    const state = registry.parse({ $type: "acme.ticket", id: "t1", title: "broken" });
    expect(state).toMatchObject({
      $type: "acme.ticket",
      $v: 3,
      priority: "normal",
      severity: 3,
      title: "broken",
    });
    const v2 = registry.parse({ $type: "acme.ticket", $v: 2, id: "t1", title: "x", priority: "high" });
    expect(v2).toMatchObject({ $v: 3, severity: 1 });
  });

  it("refuses a version newer than it knows", () => {
    const registry = createRegistry().register(ticketType);
    const error = catchError(() => registry.parse({ $type: "acme.ticket", $v: 4, id: "t1" }));
    expect(error).toBeInstanceOf(UnsupportedVersionError);
    expect(error.message).toContain("version 4");
  });

  it("refuses a type without its migrations", () => {
    expect(() => defineThreadType({ type: "acme.broken", version: 2, schema: ThreadStateSchema })).toThrow(
      /migration/,
    );
  });

  it("throws on a second registration of one type id", () => {
    const registry = createRegistry().register(ticketType);
    expect(() => registry.register(ticketType)).toThrow(DuplicateThreadTypeError);
    expect(() => registry.ensure(ticketType)).not.toThrow();
  });

  it("names the package to install for skein's own types", () => {
    const error = catchError(() => createRegistry().parse({ $type: "redis", id: "x" }));
    expect(error).toBeInstanceOf(UnknownThreadTypeError);
    expect(error.message).toContain("npm install @skein/adapter-redis");
    const custom = catchError(() => createRegistry().parse({ $type: "acme.nothing", id: "x" }));
    expect(custom.message).toContain("acme.nothing");
  });

  it("preserves unknown types opaquely, nested inside known ones, byte for byte", () => {
    const registry = createRegistry().register(holderType);
    const json = JSON.stringify({
      $type: "acme.holder",
      id: "w",
      threads: {
        main: { $type: "foundry.conversation", id: "c", conversationId: "conv_1", z: [1, { a: null }] },
        local: { $type: "acme.holder", id: "inner", threads: {} },
      },
      extra: "kept",
    });
    const state = registry.parse(JSON.parse(json), { unknown: "preserve" }) as Record<string, unknown>;
    const threads = state.threads as Record<string, unknown>;
    expect(OpaqueThreadState.isInstance(threads.main)).toBe(true);
    expect(JSON.parse(JSON.stringify(state))).toEqual({
      ...JSON.parse(json),
      $v: 1,
      threads: { ...JSON.parse(json).threads, local: { ...JSON.parse(json).threads.local, $v: 1 } },
    });
    expect(JSON.stringify((threads.main as OpaqueThreadState).toJSON())).toBe(
      JSON.stringify(JSON.parse(json).threads.main),
    );
    expect(() => registry.parse(JSON.parse(json))).toThrow(UnknownThreadTypeError);
  });

  it("gives a JSON Schema of every registered state", () => {
    const registry = createRegistry().register(ticketType);
    const schema = registry.jsonSchema() as {
      $defs: Record<string, { properties: Record<string, unknown> }>;
    };
    // `$nested` checks states nested anywhere in a context by their `$type`.
    expect(Object.keys(schema.$defs)).toEqual(["acme.ticket", "memory", "workflow", "$nested"]);
    expect(schema.$defs["acme.ticket"]?.properties).toHaveProperty("priority");
    expect(schema.$defs.memory?.properties).toHaveProperty("segments");
  });

  it("keeps one process-wide registry on globalThis", () => {
    const registry = defaultRegistry();
    expect((globalThis as Record<symbol, unknown>)[Symbol.for("skein.registry")]).toBe(registry);
    expect(defaultRegistry()).toBe(defaultRegistry());
    expect(createRegistry()).not.toBe(defaultRegistry());
  });

  it("reports bad input with a path, as a SkeinError", () => {
    const registry = createRegistry().register(ticketType);
    const error = catchError(() =>
      registry.parse({ $type: "acme.ticket", $v: 3, id: "t", title: 5, priority: "low", severity: 1 }),
    );
    expect(error).toBeInstanceOf(InvalidThreadStateError);
    expect(error.message).toContain("title");
    for (const bad of [null, [], "x", { id: "x" }, { $type: "", id: "x" }, { $type: "memory", id: "" }]) {
      expect(SkeinError.isInstance(catchError(() => parseThreadState(bad)))).toBe(true);
    }
  });
});

function catchError(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error");
}

describe("errors", () => {
  it("isInstance tells error classes apart, by markers that survive duplicate installs", async () => {
    const { ConflictError, ConcurrencyError, ThreadNotFoundError } = await import("./errors.js");
    const conflict = new ConflictError("x");
    expect(SkeinError.isInstance(conflict)).toBe(true);
    expect(ConflictError.isInstance(conflict)).toBe(true);
    expect(ConcurrencyError.isInstance(conflict)).toBe(false);
    class RemoteNotFound extends ThreadNotFoundError {}
    const remote = new RemoteNotFound("t");
    expect(ThreadNotFoundError.isInstance(remote)).toBe(true);
    expect(RemoteNotFound.isInstance(new ThreadNotFoundError("t"))).toBe(false);
    // A copy of the class from another install marks the same symbols, named by its explicit marker.
    const foreign = Object.assign(Object.create(null), {
      [Symbol.for("skein.error")]: true,
      [Symbol.for(`skein.error:${ConflictError.marker}`)]: true,
    });
    expect(ConflictError.isInstance(foreign)).toBe(true);
    expect(ConflictError.isInstance(new Error("plain"))).toBe(false);
  });
});
