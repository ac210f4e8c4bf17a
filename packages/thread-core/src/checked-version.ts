import { InvalidTypeDefinitionError } from "./errors.js";

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
