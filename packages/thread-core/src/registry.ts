import { z } from "zod";
import {
  DuplicateThreadTypeError,
  InvalidThreadStateError,
  SkeinError,
  ThreadTypeClashError,
  UnknownThreadTypeError,
  UnsupportedVersionError,
} from "./errors.js";
import { assertThreadId } from "./ids.js";
import { cloneJson, isPlainObject, type JsonObject, jsonData } from "./json.js";
import { MessageListSchema, MessageSchema } from "./message.js";
import { OpaqueThreadState } from "./opaque-state.js";
import type { ParsedState, ParseOptions } from "./spec/parsed-state.js";
import type { ThreadState } from "./spec/thread-state.js";
import type { ThreadType, ThreadTypeRegistry } from "./spec/thread-store.js";
import { assertSpecificationVersion } from "./specification-version.js";
import { nestedStateSchema, stateFields, walkStateFields } from "./state-fields.js";
import { stateSchemaTypes } from "./state-schema-marker.js";

/**
 * A lookup table without a prototype: a type id such as `__proto__` or `constructor` is looked up like any
 * other, and finds nothing.
 */
function table(entries: Record<string, string>): Readonly<Record<string, string>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, string>, entries));
}

/** Which package provides each of skein's own thread types, for the error that says what to install. */
export const SKEIN_TYPE_PACKAGES: Readonly<Record<string, string>> = table({
  fs: "@skein/adapter-fs",
  redis: "@skein/adapter-redis",
  "openai.conversation": "@skein/adapter-openai",
  "openai.responses": "@skein/adapter-openai",
  "foundry.conversation": "@skein/adapter-foundry",
  "foundry.thread": "@skein/adapter-foundry",
  a2a: "@skein/adapter-a2a",
});

/** skein's own type ids and namespaces, and the package each belongs to. */
const RESERVED_TYPES: Readonly<Record<string, string>> = table({
  memory: "@skein/thread-core",
  workflow: "@skein/thread-core",
  ...SKEIN_TYPE_PACKAGES,
});
const RESERVED_NAMESPACES: Readonly<Record<string, string>> = table({
  skein: "@skein/thread-core",
  openai: "@skein/adapter-openai",
  foundry: "@skein/adapter-foundry",
  a2a: "@skein/adapter-a2a",
  "thread-service": "@skein/thread-service",
});

/** Where a state sits: the root thread, or nested inside one (a context provider's state, a `stateOf` field). */
type Place = "root" | "nested";

export type { ParsedState, ParseOptions } from "./spec/parsed-state.js";

/** The `$type` registry: which thread types this process can read, validate, migrate and bind. */
export class Registry implements ThreadTypeRegistry {
  readonly #types = new Map<string, ThreadType>();

  /**
   * Adds a thread type (`defineThreadType`) or nested state type (`defineStateType`); a second registration
   * of the same type id throws `DuplicateThreadTypeError`, an id that is skein's own or in another
   * package's namespace throws `ThreadTypeClashError`, and a `specificationVersion` other than `"v1"` throws
   * `UnsupportedSpecificationError`.
   */
  register<State extends ThreadState>(type: ThreadType<State>): this {
    // A type that declares no version was written before types declared one (or by another installed copy of
    // thread-core that shares this registry): it is a v1 type. Any other declared version is refused.
    assertSpecificationVersion(`thread type ${JSON.stringify(type.type)}`, type.specificationVersion ?? "v1");
    if (this.#types.has(type.type)) throw new DuplicateThreadTypeError(type.type);
    this.#checkNamespace(type as unknown as ThreadType);
    this.#types.set(type.type, type as unknown as ThreadType);
    return this;
  }

  #checkNamespace(type: ThreadType): void {
    const reserved = RESERVED_TYPES[type.type];
    if (reserved !== undefined && type.packageName !== reserved) {
      throw new ThreadTypeClashError(type.type, `a type of ${reserved}`);
    }
    const dot = type.type.indexOf(".");
    if (dot <= 0) return;
    const namespace = type.type.slice(0, dot);
    const owner = RESERVED_NAMESPACES[namespace];
    if (owner !== undefined && type.packageName !== owner) {
      throw new ThreadTypeClashError(type.type, `the namespace "${namespace}." of ${owner}`);
    }
    for (const other of this.#types.values()) {
      if (!other.type.startsWith(`${namespace}.`) || other.packageName === type.packageName) continue;
      throw new ThreadTypeClashError(
        type.type,
        `the namespace "${namespace}." of ${other.packageName ?? "the application"} (it holds ${JSON.stringify(other.type)})`,
      );
    }
  }

  /** Registers `type` unless this very definition is registered already (adapters call it on every open). */
  ensure<State extends ThreadState>(type: ThreadType<State>): this {
    const existing = this.#types.get(type.type);
    // Another installed copy of the same package defines the same type: keep the first.
    if (
      existing === (type as unknown) ||
      (existing?.packageName !== undefined && existing.packageName === type.packageName)
    ) {
      return this;
    }
    return this.register(type);
  }

  get(type: string): ThreadType | undefined {
    return this.#types.get(type);
  }

  has(type: string): boolean {
    return this.#types.has(type);
  }

  /** The registered types, sorted by id. */
  types(): ThreadType[] {
    return [...this.#types.values()].sort((a, b) => a.type.localeCompare(b.type));
  }

  /** Validates, migrates and resolves nested states; the result is a state, not yet bound to behaviour. */
  parse(json: unknown, options: ParseOptions = {}): ParsedState {
    try {
      // The JSON rule of every door: `undefined` properties are absent (see `jsonData`).
      return this.#parseState(jsonData(json), options, [], "root");
    } catch (error) {
      if (SkeinError.isInstance(error)) throw error;
      // Anything else (a stack overflow in a user's schema, a bug in a migration) is still reported as ours.
      throw new InvalidThreadStateError(error instanceof Error ? error.message : String(error), [], {
        cause: error,
      });
    }
  }

  /**
   * A thread's `context` with every nested state in it (an object with a `$type`, at any depth) validated
   * and migrated; errors name the path from `context`.
   */
  parseContext(context: Record<string, unknown>, options: ParseOptions = {}): Record<string, unknown> {
    try {
      return walkStateFields(jsonData(context), "any", ["context"], (child, at) =>
        this.#parseNestedState(child, options, at),
      ) as Record<string, unknown>;
    } catch (error) {
      if (SkeinError.isInstance(error)) throw error;
      throw new InvalidThreadStateError(error instanceof Error ? error.message : String(error), ["context"], {
        cause: error,
      });
    }
  }

  #parseNestedState(child: Record<string, unknown>, options: ParseOptions, path: Array<string | number>) {
    const parsed = this.#parseState(child, options, path, "nested");
    // An unknown nested state is kept as the very JSON it was, so it saves back byte-equal.
    return OpaqueThreadState.isInstance(parsed) ? parsed.raw : parsed;
  }

  #parseState(json: unknown, options: ParseOptions, path: Array<string | number>, place: Place): ParsedState {
    if (!isPlainObject(json)) throw new InvalidThreadStateError("expected a JSON object", path);
    const typeId = json.$type;
    if (typeof typeId !== "string" || typeId.length === 0) {
      throw new InvalidThreadStateError('"$type" must be a non-empty string', [...path, "$type"]);
    }
    const type = this.#types.get(typeId);
    if (!type) {
      if (options.unknown === "preserve") return new OpaqueThreadState(cloneJson(json) as JsonObject);
      throw new UnknownThreadTypeError(typeId, SKEIN_TYPE_PACKAGES[typeId]);
    }
    const version = json.$v ?? 1;
    if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
      throw new InvalidThreadStateError('"$v" must be a positive integer', [...path, "$v"]);
    }
    if (version > type.version) throw new UnsupportedVersionError(typeId, version, type.version);
    if (type.kind === "state") {
      if (place === "root") {
        throw new InvalidThreadStateError(
          `${JSON.stringify(typeId)} is a nested state type (defineStateType), not a thread; it lives in a thread's context or a stateOf field`,
          [...path, "$type"],
        );
      }
    } else {
      try {
        assertThreadId(json.id);
      } catch (error) {
        const reason = (error as { reason?: string }).reason ?? (error as Error).message;
        throw new InvalidThreadStateError(`invalid thread id: ${reason}`, [...path, "id"], { cause: error });
      }
    }

    // Migrations get a copy to change; without them the schema builds the result and the input stays untouched.
    let migrated: Record<string, unknown> = version < type.version ? cloneJson(json) : json;
    for (let from = version; from < type.version; from++) {
      const migration = type.migrations?.[from] as (
        state: Record<string, unknown>,
      ) => Record<string, unknown>;
      migrated = { ...migration(migrated), $type: typeId, $v: from + 1 };
    }
    const result = type.schema.safeParse(migrated);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new InvalidThreadStateError(issue?.message ?? "does not match its schema", [
        ...path,
        ...(issue?.path ?? []).map((part) => (typeof part === "number" ? part : String(part))),
      ]);
    }
    // Spread the input under the output so fields the schema does not know survive even a strict schema.
    let state = { ...migrated, ...(result.data as object), $type: typeId, $v: type.version } as ThreadState;
    // Nested states: wherever they sit in the context, and in the fields the schema declares with stateOf.
    const parseNested = (child: Record<string, unknown>, at: Array<string | number>) =>
      this.#parseNestedState(child, options, at);
    if (type.kind !== "state" && isPlainObject(state.context)) {
      state.context = walkStateFields(state.context, "any", [...path, "context"], parseNested) as Record<
        string,
        unknown
      >;
    }
    for (const [key, shape] of stateFields(type.schema)) {
      if (state[key] !== undefined)
        state[key] = walkStateFields(state[key], shape, [...path, key], parseNested);
    }
    if (type.nested) {
      state = type.nested(
        state,
        (child, key) => this.#parseState(child, options, [...path, key], "nested") as ThreadState,
      );
    }
    return state;
  }

  /**
   * One JSON Schema (draft 2020-12) of every registered state, for readers in other languages. Nested
   * states (a context's provider states, `stateOf` fields) are checked by their `$type` against `$defs`.
   */
  jsonSchema(): Record<string, unknown> {
    const definitions: Record<string, unknown> = {};
    const nested = { $ref: "#/$defs/$nested" };
    for (const type of this.types()) {
      const definition = z.toJSONSchema(type.schema as z.ZodType, {
        io: "input",
        unrepresentable: "any",
        target: "draft-2020-12",
        override: (context) => {
          // The fast message list validates like an array of MessageSchema; say so.
          if ((context.zodSchema as unknown) === MessageListSchema) {
            Object.assign(
              context.jsonSchema,
              z.toJSONSchema(z.array(MessageSchema), { io: "input", unrepresentable: "any" }),
            );
            delete context.jsonSchema.$schema;
          }
          const accepted = stateSchemaTypes(context.zodSchema);
          if (accepted !== undefined) {
            for (const key of Object.keys(context.jsonSchema)) delete context.jsonSchema[key];
            Object.assign(
              context.jsonSchema,
              accepted.length === 0
                ? { type: "object", required: ["$type"], allOf: [nested] }
                : { anyOf: accepted.map((id) => ({ $ref: `#/$defs/${id}` })) },
            );
          }
        },
      }) as Record<string, unknown>;
      delete definition.$schema;
      anchorLocalReferences(definition, type.type);
      const properties = definition.properties as Record<string, Record<string, unknown>> | undefined;
      if (type.kind !== "state" && properties?.context) {
        properties.context = { type: "object", additionalProperties: nested };
      }
      definitions[type.type] =
        type.kind === "state"
          ? { allOf: [definition, { properties: { $type: { const: type.type } }, required: ["$type"] }] }
          : definition;
    }
    definitions.$nested = nestedStateSchema(this.types().map((type) => type.type));
    return {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      title: "skein thread state",
      oneOf: this.types()
        .filter((type) => type.kind !== "state")
        .map((type) => ({
          allOf: [
            { $ref: `#/$defs/${type.type}` },
            { properties: { $type: { const: type.type } }, required: ["$type"] },
          ],
        })),
      $defs: definitions,
    };
  }
}

/**
 * zod puts schemas a definition reuses in the definition's own `$defs` and refers to them from the root
 * (`#/$defs/__schema0`); inside the combined schema the root is another document, so point them at the
 * definition's place in it.
 */
function anchorLocalReferences(definition: Record<string, unknown>, typeId: string): void {
  const local = definition.$defs as Record<string, unknown> | undefined;
  if (!local) return;
  const escaped = typeId.replaceAll("~", "~0").replaceAll("/", "~1");
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!isPlainObject(value)) return;
    const reference = value.$ref;
    if (typeof reference === "string" && reference.startsWith("#/$defs/")) {
      const name = reference.slice("#/$defs/".length);
      if (Object.hasOwn(local, name)) value.$ref = `#/$defs/${escaped}/$defs/${name}`;
    }
    for (const item of Object.values(value)) visit(item);
  };
  visit(definition);
}
