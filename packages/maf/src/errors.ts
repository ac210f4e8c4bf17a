import { InvalidThreadStateError, SkeinError, type SkeinErrorOptions } from "@skein/thread-core";

/** The package name errors of this package start with. */
export const SOURCE = "maf";

/** A place in a MAF document, as a JSON path: `["state", "in_memory", "messages", 0, "role"]`. */
export type JsonPath = ReadonlyArray<string | number>;

/** `$.state.in_memory.messages[0].role`: the path as people read it. */
export function formatJsonPath(path: JsonPath): string {
  return `$${path.map((part) => (typeof part === "number" ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`)).join("")}`;
}

/**
 * A MAF document skein cannot read or write as MAF's own reader would: not a session or history, a message
 * without a role, a content without a type, an unknown key where MAF is strict. `path` says where; nothing
 * was imported or written.
 */
export class MafDocumentError extends SkeinError {
  static override readonly marker: string = "skein.maf.MafDocumentError";
  /** An invalid state, to every check of `InvalidThreadStateError.isInstance` (the CLI's exit 5 among them). */
  static override readonly alsoMarkers: readonly string[] = [InvalidThreadStateError.marker];
  constructor(
    /** What was being read or written: `MAF Python session`, `MAF .NET session`, `MAF history line 3`, … */
    readonly document: string,
    readonly path: JsonPath,
    readonly reason: string,
    options?: Omit<SkeinErrorOptions, "source">,
  ) {
    super(`${document} at ${formatJsonPath(path)}: ${reason}`, { ...options, source: SOURCE });
  }
}

/**
 * A MAF document in a form this package does not read: MAF's msgpack files (`serialization_format="msgpack"`).
 * Convert them to JSON with MAF first.
 */
export class MafFormatNotSupportedError extends SkeinError {
  static override readonly marker: string = "skein.maf.MafFormatNotSupportedError";
  constructor(
    readonly format: string,
    options?: Omit<SkeinErrorOptions, "source">,
  ) {
    super(
      `${format} is not supported, convert with MAF to JSON (FileSessionStore / FileHistoryProvider with serialization_format="json") and read that.`,
      { ...options, source: SOURCE },
    );
  }
}
