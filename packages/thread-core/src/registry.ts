import { z } from "zod";
import {
  DuplicateThreadTypeError,
  InvalidThreadStateError,
  SkeinError,
  UnknownThreadTypeError,
  UnsupportedVersionError,
} from "./errors.js";
import { assertThreadId } from "./ids.js";
import { assertJsonValue, cloneJson, isPlainObject, type JsonObject } from "./json.js";
import { MessageListSchema, MessageSchema } from "./message.js";
import { OpaqueThreadState } from "./opaque-state.js";
import type { ThreadState, ThreadType } from "./thread-type.js";

/** Which package provides each of skein's own thread types, for the error that says what to install. */
export const SKEIN_TYPE_PACKAGES: Readonly<Record<string, string>> = {
  fs: "@skein/adapter-fs",
  redis: "@skein/adapter-redis",
  "openai.conversation": "@skein/adapter-openai",
  "openai.responses": "@skein/adapter-openai",
  "foundry.conversation": "@skein/adapter-foundry",
  "foundry.thread": "@skein/adapter-foundry",
  a2a: "@skein/adapter-a2a",
};

export interface ParseOptions {
  /** `"throw"` (default): an unknown `$type` is an `UnknownThreadTypeError`; `"preserve"`: an `OpaqueThreadState`. */
  unknown?: "throw" | "preserve";
}

export type ParsedState = ThreadState | OpaqueThreadState;

/** The `$type` registry: which thread types this process can read, validate, migrate and bind. */
export class Registry {
  readonly #types = new Map<string, ThreadType>();

  /** Adds a type; a second registration of the same type id throws `DuplicateThreadTypeError`. */
  register<State extends ThreadState>(type: ThreadType<State>): this {
    if (this.#types.has(type.type)) throw new DuplicateThreadTypeError(type.type);
    this.#types.set(type.type, type as unknown as ThreadType);
    return this;
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
      assertJsonValue(json);
      return this.#parseState(json, options, []);
    } catch (error) {
      if (SkeinError.isInstance(error)) throw error;
      // Anything else (a stack overflow in a user's schema, a bug in a migration) is still reported as ours.
      throw new InvalidThreadStateError(error instanceof Error ? error.message : String(error), [], {
        cause: error,
      });
    }
  }

  #parseState(json: unknown, options: ParseOptions, path: Array<string | number>): ParsedState {
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
    try {
      assertThreadId(json.id);
    } catch (error) {
      const reason = (error as { reason?: string }).reason ?? (error as Error).message;
      throw new InvalidThreadStateError(`invalid thread id: ${reason}`, [...path, "id"], { cause: error });
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
    if (type.nested) {
      state = type.nested(
        state,
        (child, key) => this.#parseState(child, options, [...path, key]) as ThreadState,
      );
    }
    return state;
  }

  /** One JSON Schema (draft 2020-12) of every registered state, for readers in other languages. */
  jsonSchema(): Record<string, unknown> {
    const definitions: Record<string, unknown> = {};
    for (const type of this.types()) {
      definitions[type.type] = z.toJSONSchema(type.schema as z.ZodType, {
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
        },
      });
    }
    return {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      title: "skein thread state",
      oneOf: Object.keys(definitions).map((id) => ({
        allOf: [{ $ref: `#/$defs/${id}` }, { properties: { $type: { const: id } }, required: ["$type"] }],
      })),
      $defs: definitions,
    };
  }
}
