import { checkedVersion } from "./checked-version.js";
import { InvalidTypeDefinitionError } from "./errors.js";
import type { ThreadState } from "./spec/thread-state.js";
import type { ThreadType, ThreadTypeDefinition } from "./spec/thread-store.js";

export type { ThreadState } from "./spec/thread-state.js";
export type {
  BindEnvironment,
  ThreadType,
  ThreadTypeDefinition,
} from "./spec/thread-store.js";
export { ThreadStateSchema } from "./thread-state-schema.js";

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
