import { z } from "zod";
import { InvalidTypeDefinitionError } from "./errors.js";
import type { Registry } from "./registry.js";
import type { SkeinAdapter, ThreadStore } from "./store/store.js";
import type { Thread } from "./thread.js";
import { TimestampSchema } from "./timestamp.js";

const jsonObject = z.record(z.string(), z.json());

/** The fields every thread state has. Extend it for your own types: `ThreadStateSchema.extend({ … })`. */
export const ThreadStateSchema = z.looseObject({
  $type: z.string().min(1),
  $v: z.number().int().positive().optional(),
  id: z.string().min(1),
  createdAt: TimestampSchema.optional(),
  metadata: jsonObject.optional(),
  context: jsonObject.optional(),
});

/** The JSON every thread is: `$type`, `$v`, `id`, `createdAt`, `metadata` and `context`. */
export interface ThreadState {
  $type: string;
  // `| undefined` on optional fields: what zod infers for `.optional()`, so a user's schema
  // (`ThreadStateSchema.extend(…)`) fits here with `exactOptionalPropertyTypes` on.
  $v?: number | undefined;
  id: string;
  createdAt?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  context?: Record<string, unknown> | undefined;
  [field: string]: unknown;
}

/** What `bind` receives besides the state: where the thread lives and how nested states are read. */
export interface BindEnvironment {
  registry: Registry;
  /** The store that opened the state, when there is one. */
  store?: ThreadStore;
  /** The adapters the store was opened with, holding clients and credentials that states never carry. */
  adapters?: readonly SkeinAdapter[];
  /**
   * True when the state was read from `store` (`store.get`), not brought to it as JSON (`store.open`): a
   * thread of such a state that the store no longer holds was deleted there, not never saved there.
   */
  stored?: boolean;
}

/** What `defineThreadType` takes: type id, version, zod schema, migrations and an optional `bind`. */
export interface ThreadTypeDefinition<State extends ThreadState = ThreadState> {
  /** The `$type` id: skein's own are bare words, yours are namespaced (`acme.ticket`). */
  type: string;
  /** The current schema version; states with a lower `$v` are migrated forward. @default 1 */
  version?: number;
  schema: z.ZodType<State, unknown>;
  /** `migrations[n]` turns a version-n state into a version-(n+1) state. */
  migrations?: Record<number, (state: Record<string, unknown>) => Record<string, unknown>>;
  /** Gives the state its behaviour; types without it can be parsed and saved but not opened as threads. */
  bind?(state: State, environment: BindEnvironment): Thread | Promise<Thread>;
  /**
   * Creates a new thread of this type (a remote conversation, say) from adapter-specific options and saves
   * its state in `environment.store`.
   */
  create?(options: Record<string, unknown>, environment: BindEnvironment): Promise<Thread>;
  /** Parses the nested thread states this state holds (a workflow's sub-threads) with `parseChild`. */
  nested?(state: State, parseChild: (child: unknown, key: string) => ThreadState): State;
  /**
   * `"reference"`: the state only names a local thread whose log a store keeps (`fs`, `redis`); a store
   * holding a log under the same id binds it, whatever kind of store wrote the reference.
   */
  storage?: "reference";
  /**
   * `true`: a local thread type of your own. Its threads are local threads of whatever store holds them
   * (append, fork, checkpoint, rollback, views, revisions) that also carry the typed fields `schema`
   * declares: `store.create("acme.ticket", { subject })`, `thread.update({ fields })`. No `bind` needed.
   */
  local?: boolean;
  /** The npm package that provides the type, named in errors. */
  packageName?: string;
}

/** A registered thread type: its definition, with parse and bind ready for the registry. */
export interface ThreadType<State extends ThreadState = ThreadState> extends ThreadTypeDefinition<State> {
  readonly version: number;
  /** `"state"`: a nested state (`defineStateType`), found inside threads, with no id of its own. */
  readonly kind?: "thread" | "state";
}

/**
 * Declares a thread type for a registry.
 * @example const ticketType = defineThreadType({ type: "acme.ticket", version: 2, schema, migrations });
 */
export function defineThreadType<State extends ThreadState>(
  definition: ThreadTypeDefinition<State>,
): ThreadType<State> {
  const version = checkedVersion(definition);
  if (definition.local && (definition.bind || definition.create || definition.storage)) {
    throw new InvalidTypeDefinitionError(
      definition.type,
      "a local type gets its behaviour from its store, so it takes no bind, create or storage",
    );
  }
  return Object.freeze({ ...definition, version, kind: "thread" as const });
}

/** The definition's version, checked to have a migration from every earlier one. */
export function checkedVersion(definition: {
  type: string;
  version?: number;
  migrations?: Record<number, unknown>;
}): number {
  const version = definition.version ?? 1;
  if (typeof definition.type !== "string" || definition.type.length === 0) {
    throw new InvalidTypeDefinitionError(
      String(definition.type),
      "give it a non-empty type id (acme.ticket)",
    );
  }
  if (!Number.isInteger(version) || version < 1) {
    throw new InvalidTypeDefinitionError(
      definition.type,
      `version is a positive integer, not ${String(version)}`,
    );
  }
  for (let from = 1; from < version; from++) {
    if (typeof definition.migrations?.[from] !== "function") {
      throw new InvalidTypeDefinitionError(
        definition.type,
        `it is at version ${version} but has no migration from ${from}; add migrations[${from}]`,
      );
    }
  }
  return version;
}
