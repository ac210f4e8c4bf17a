import { SkeinError } from "@skein/thread-core";
import { SOURCE } from "./errors.js";

/** The quoted, schema-qualified names of the store's tables. */
export interface TableNames {
  schema: string;
  meta: string;
  records: string;
  events: string;
  segments: string;
  messages: string;
  /** The append function of schema version 1 (version 2 drops it; see schema.ts). */
  append: string;
  /** A name for indexes and the migration lock, unique per schema and prefix. */
  prefix: string;
}

/** A schema or prefix must be a plain identifier: it is spliced into SQL, so nothing else is allowed. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;

export function tableNames(schema: string, prefix: string): TableNames {
  if (!IDENTIFIER.test(schema) || (prefix !== "" && !IDENTIFIER.test(prefix))) {
    throw new SkeinError(
      `schema ${JSON.stringify(schema)} and tablePrefix ${JSON.stringify(prefix)} must be letters, digits and _ (not starting with a digit), up to 40 characters.`,
      { source: SOURCE },
    );
  }
  const name = (table: string) => `"${schema}"."${prefix}${table}"`;
  return {
    schema: `"${schema}"`,
    meta: name("meta"),
    records: name("records"),
    events: name("events"),
    segments: name("segments"),
    messages: name("messages"),
    append: name("append"),
    prefix: `${schema}.${prefix}`,
  };
}
