import { z } from "zod";
import { checkedVersion } from "./checked-version.js";
import type { ThreadType } from "./spec/thread-store.js";
import { STATE_SCHEMA } from "./state-schema-marker.js";

/** A nested state as stored: its fields plus the `$type` (and `$v`) that name its type. */
export type TypedState<Fields> = Fields & { $type: string; $v?: number };

/** What `defineStateType` takes: a type id, version, zod schema and migrations. */
export interface StateTypeDefinition<Fields extends Record<string, unknown>> {
  /** The `$type` id, namespaced like a thread type's (`acme.memory`); thread and state types share one namespace. */
  type: string;
  /** The current schema version; states with a lower `$v` are migrated forward. @default 1 */
  version?: number;
  /** The version of this contract the definition is written to; `register` refuses any other. @default "v1" */
  specificationVersion?: "v1";
  /** The state's own fields (`$type` and `$v` need not be declared). */
  schema: z.ZodType<Fields, unknown>;
  /** `migrations[n]` turns a version-n state into a version-(n+1) state. */
  migrations?: Record<number, (state: Record<string, unknown>) => Record<string, unknown>>;
  /** The npm package that provides the type, named in errors. */
  packageName?: string;
}

/** A registered kind of nested state: a context provider's state, or a value in a `stateOf` field. */
export interface StateType<Fields extends Record<string, unknown> = Record<string, unknown>>
  extends ThreadType {
  readonly kind: "state";
  /** Type-level only: the fields of a state of this type. */
  readonly fieldsType?: Fields;
  /** The state with its `$type` and `$v` set, ready to store in a thread's `context` or a `stateOf` field. */
  of(fields: Fields): TypedState<Fields>;
}

/** The fields a state type declares. */
export type StateOf<Type> = Type extends StateType<infer Fields> ? TypedState<Fields> : never;

/**
 * Declares a nested state type: a state that lives inside a thread (a context provider's memory, a field
 * declared with `stateOf`), has no id of its own, and is validated and migrated wherever it sits.
 * @example const memoryState = defineStateType({ type: "acme.memory", version: 2, schema, migrations: { 1: (v1) => ({ ...v1, facts: [] }) } });
 */
export function defineStateType<Fields extends Record<string, unknown>>(
  definition: StateTypeDefinition<Fields>,
): StateType<Fields> {
  const version = checkedVersion(definition);
  const type: StateType<Fields> = Object.freeze({
    ...definition,
    version,
    kind: "state" as const,
    schema: definition.schema as unknown as ThreadType["schema"],
    of: (fields: Fields) => ({ ...fields, $type: definition.type, $v: version }),
  });
  return type;
}

/**
 * A field of a thread or state schema that holds a nested state: its `$type` picks the type through the
 * registry, which validates and migrates it. Give the accepted types, or none for any registered state.
 * @example ThreadStateSchema.extend({ notes: z.array(stateOf(noteType)) })
 */
export function stateOf<Fields extends Record<string, unknown>>(
  ...types: Array<StateType<Fields> | ThreadType>
): z.ZodType<TypedState<Fields>, unknown> {
  const ids = types.map((type) => type.type);
  const schema = z.looseObject({
    $type: ids.length === 0 ? z.string().min(1) : z.enum(ids as [string, ...string[]]),
    $v: z.number().int().positive().optional(),
  });
  Object.defineProperty(schema, STATE_SCHEMA, { value: Object.freeze(ids) });
  return schema as unknown as z.ZodType<TypedState<Fields>, unknown>;
}
