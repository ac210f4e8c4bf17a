import { SkeinError, type SkeinErrorOptions } from "./errors.js";

/**
 * The contract versions this build implements. A contract object (a thread type, an adapter, a store, a log
 * driver, a runner) declares the one it was written to, so that a v2 can arrive beside v1 and an object of
 * another version is refused where it is accepted instead of failing later in a way nobody can read.
 */
export const SUPPORTED_SPECIFICATION_VERSIONS: readonly string[] = Object.freeze(["v1"]);

/** A contract object declares a specification version this build of thread-core does not implement. */
export class UnsupportedSpecificationError extends SkeinError {
  static override readonly marker: string = "skein.thread-core.UnsupportedSpecificationError";
  constructor(
    /** What was given, in words: `thread type "acme.ticket"`, `adapter @acme/skein-adapter`, `runner`. */
    readonly contract: string,
    /** The `specificationVersion` it declares, as given (`undefined` when it declares none). */
    readonly specificationVersion: unknown,
    readonly supportedVersions: readonly string[] = SUPPORTED_SPECIFICATION_VERSIONS,
    options?: SkeinErrorOptions,
  ) {
    const given =
      specificationVersion === undefined ? "no specificationVersion" : describe(specificationVersion);
    super(
      `The ${contract} declares ${given}; this build of @skein/thread-core supports specificationVersion ${supportedVersions.map((version) => JSON.stringify(version)).join(", ")} only. Use a release of the package that provides it made for this thread-core, or upgrade @skein/thread-core.`,
      options,
    );
  }
}

function describe(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : String(value).slice(0, 40);
  return `specificationVersion ${text}`;
}

/**
 * Refuses a contract object whose `specificationVersion` this build does not implement, with
 * `UnsupportedSpecificationError`; called where contracts are accepted (register, openStore, runners).
 * @example assertSpecificationVersion(`adapter ${adapter.packageName}`, adapter.specificationVersion);
 */
export function assertSpecificationVersion(
  contract: string,
  specificationVersion: unknown,
  options?: SkeinErrorOptions,
): void {
  if (
    typeof specificationVersion === "string" &&
    SUPPORTED_SPECIFICATION_VERSIONS.includes(specificationVersion)
  ) {
    return;
  }
  throw new UnsupportedSpecificationError(
    contract,
    specificationVersion,
    SUPPORTED_SPECIFICATION_VERSIONS,
    options,
  );
}
