/**
 * Marks the schemas `stateOf` made with the type ids each accepts (empty: any registered state); a
 * `Symbol.for` key, so a registry of another installed copy of thread-core recognises them too.
 */
export const STATE_SCHEMA = Symbol.for("skein.stateOf");

/** The type ids a `stateOf` schema accepts, or undefined when `schema` is not one. */
export function stateSchemaTypes(schema: unknown): readonly string[] | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  return (schema as { [STATE_SCHEMA]?: readonly string[] })[STATE_SCHEMA];
}
