import { readFileSync } from "node:fs";
import { LockTimeoutError, StoreDirectoryError, StoreNotFoundError } from "@skein/adapter-fs";
import {
  AdapterNotInstalledError,
  ConcurrencyError,
  ConflictError,
  InvalidMessageError,
  InvalidStoreUrlError,
  InvalidThreadIdError,
  InvalidThreadStateError,
  MessageOffBranchError,
  MessageTooLargeError,
  PointNotFoundError,
  ServiceConflictError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceUnavailableError,
  SkeinError,
  StoreClosedError,
  StoreUnavailableError,
  ThreadExistsError,
  ThreadNotFoundError,
  UnknownThreadTypeError,
  UnsupportedOperationError,
  UnsupportedVersionError,
} from "@skein/thread-core";
import { HeadMovedError, rememberSecret } from "@skein/thread-core/driver";
import { describe, expect, it } from "vitest";
import { CliError, UsageError } from "./cli-error.js";
import { describeError } from "./describe-error.js";
import { EXIT_CODE_HELP, EXIT_CODES } from "./exit-codes.js";

/** One error of each family README's "Exit codes" names, so each row of the mapping is asked on its own. */
const ONE_OF_EACH: Record<string, () => Error> = {
  ThreadNotFoundError: () => new ThreadNotFoundError("t"),
  PointNotFoundError: () => new PointNotFoundError("t", "cp"),
  ThreadExistsError: () => new ThreadExistsError("t"),
  ConflictError: () => new ConflictError("differs"),
  ConcurrencyError: () => new ConcurrencyError("t", 1, 2),
  HeadMovedError: () => new HeadMovedError("t"),
  MessageOffBranchError: () => new MessageOffBranchError("t", "m"),
  InvalidThreadStateError: () => new InvalidThreadStateError("bad"),
  InvalidMessageError: () => new InvalidMessageError("bad"),
  InvalidThreadIdError: () => new InvalidThreadIdError("empty"),
  UnknownThreadTypeError: () => new UnknownThreadTypeError("nope"),
  UnsupportedVersionError: () => new UnsupportedVersionError("memory", 9, 1),
  MessageTooLargeError: () => new MessageTooLargeError("t", "m", 10, 5),
  InvalidStoreUrlError: () => new InvalidStoreUrlError("nope:", "unknown scheme"),
  AdapterNotInstalledError: () => new AdapterNotInstalledError("@skein/adapter-redis", "redis"),
  StoreUnavailableError: () => new StoreUnavailableError("down"),
  LockTimeoutError: () => new LockTimeoutError("/tmp/t.lock", 10_000, undefined),
  StoreClosedError: () => new StoreClosedError(),
  StoreDirectoryError: () => new StoreDirectoryError("/proc/x", "/proc/x", "mkdir refused", "ENOENT"),
  StoreNotFoundError: () => new StoreNotFoundError("/tmp/typo", "the directory does not exist"),
};

function errorNamed(name: string): Error {
  const make = ONE_OF_EACH[name];
  if (!make) throw new Error(`the README names ${name}, which this test cannot make`);
  return make();
}

/**
 * The README's "Exit codes" paragraph, "`ThreadNotFoundError`, `PointNotFoundError` → 3; …", as [error, code]
 * pairs: the documented mapping, which the code must follow row by row.
 */
function readmeExitCodes(): Array<[string, number]> {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const start = readme.indexOf("skein errors map by family");
  const end = readme.indexOf("any other skein error", start);
  const paragraph = readme.slice(start, end).replace(/\s+/g, " ");
  const pairs: Array<[string, number]> = [];
  for (const [, names, code] of paragraph.matchAll(/([^;:]*?)→ (\d)/g)) {
    for (const [, name] of (names as string).matchAll(/`(\w+Error)`/g))
      pairs.push([name as string, Number(code)]);
  }
  return pairs;
}

describe("describeError: exit codes", () => {
  it("maps skein errors, and their subclasses, to their family's code", () => {
    expect(describeError(new ThreadNotFoundError("t")).exitCode).toBe(EXIT_CODES.notFound);
    expect(describeError(new ConflictError("differs")).exitCode).toBe(EXIT_CODES.conflict);
    expect(describeError(new InvalidThreadStateError("bad")).exitCode).toBe(EXIT_CODES.invalidData);
    expect(describeError(new StoreUnavailableError("down")).exitCode).toBe(EXIT_CODES.store);
    // adapter-fs's lock timeout is a StoreUnavailableError under another name.
    const lock = new LockTimeoutError("/tmp/t.lock", 10_000, undefined);
    expect(describeError(lock).exitCode).toBe(EXIT_CODES.store);
    class PaymentServiceDown extends StoreUnavailableError {}
    expect(describeError(new PaymentServiceDown("down")).exitCode).toBe(EXIT_CODES.store);
    expect(describeError(new UnsupportedOperationError("a2a", "rollback")).exitCode).toBe(EXIT_CODES.failure);
    expect(describeError(new SkeinError("something else")).exitCode).toBe(EXIT_CODES.failure);
  });

  it("maps the service-error family, which every remote adapter throws, as the families it extends", () => {
    const failure = { operation: "conversations.items.list", status: 404 };
    const source = { source: "adapter-openai" };
    expect(describeError(new ServiceNotFoundError("t", "gone", failure, source)).exitCode).toBe(
      EXIT_CODES.notFound,
    );
    expect(describeError(new ServiceConflictError("busy", failure, source)).exitCode).toBe(
      EXIT_CODES.conflict,
    );
    expect(describeError(new ServiceUnavailableError("down", failure, source)).exitCode).toBe(
      EXIT_CODES.store,
    );
    expect(describeError(new ServiceRateLimitError("slow down", failure, source)).exitCode).toBe(
      EXIT_CODES.store,
    );
  });

  it("a RangeError (a stack overflow, a store's refusal) is a failure with a clear line, never usage", () => {
    const overflow = describeError(new RangeError("Maximum call stack size exceeded"));
    expect(overflow.exitCode).toBe(EXIT_CODES.failure);
    expect(overflow.line).toBe(
      "internal error: RangeError: Maximum call stack size exceeded; please report it with the command that caused it",
    );
    const typeError = describeError(new TypeError("Cannot read properties of null (reading 'id')"));
    expect(typeError.exitCode).toBe(EXIT_CODES.failure);
    expect(typeError.line).toMatch(/^internal error: TypeError: Cannot read properties of null/);
    const thrown = describeError("a string");
    expect(thrown).toEqual({
      exitCode: EXIT_CODES.failure,
      line: "internal error: a string; please report it",
    });
  });

  it("system errors speak for themselves; unreachable backends are store errors", () => {
    const denied = Object.assign(new Error("EACCES: permission denied, open 'threads.jsonl'"), {
      code: "EACCES",
    });
    expect(describeError(denied)).toEqual({
      exitCode: EXIT_CODES.failure,
      line: "EACCES: permission denied, open 'threads.jsonl'",
    });
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(describeError(refused).exitCode).toBe(EXIT_CODES.store);
  });

  it("the CLI's own errors are SkeinErrors: [cli] in the message, not in the stderr line, exit code kept", () => {
    const usage = new UsageError("missing <id>");
    expect(SkeinError.isInstance(usage)).toBe(true);
    expect(CliError.isInstance(usage)).toBe(true);
    expect(usage.message).toBe("[cli] missing <id>");
    expect(usage.name).toBe("UsageError");
    expect(describeError(usage)).toEqual({ exitCode: EXIT_CODES.usage, line: "missing <id>" });
    const missing = new CliError("no such file: x", EXIT_CODES.notFound);
    expect(UsageError.isInstance(missing)).toBe(false);
    expect(describeError(missing)).toEqual({ exitCode: EXIT_CODES.notFound, line: "no such file: x" });
  });

  it("only a UsageError (or a CliError that says so) exits 2", () => {
    expect(describeError(new UsageError("missing <id>")).exitCode).toBe(EXIT_CODES.usage);
    expect(describeError(new CliError("no such file: x", EXIT_CODES.notFound)).exitCode).toBe(
      EXIT_CODES.notFound,
    );
    const others = [
      new RangeError("cursor is not one that list() returned"),
      new RangeError("Invalid array length"),
      new SyntaxError("Unexpected token"),
      new Error("plain"),
      new SkeinError("plain"),
    ];
    for (const error of others) expect(describeError(error).exitCode, error.message).not.toBe(2);
  });

  it.each(readmeExitCodes())("the README's %s exits %i, as every error of that family does", (name, code) => {
    const error = errorNamed(name);
    expect(error.name).toBe(name);
    expect(describeError(error).exitCode).toBe(code);
  });

  it("the README's list of error families names every error the mapping tests", () => {
    expect(
      readmeExitCodes()
        .map(([name]) => name)
        .sort(),
    ).toEqual(Object.keys(ONE_OF_EACH).sort());
  });

  it("every exit code is documented in --help", () => {
    expect(EXIT_CODE_HELP.map(([code]) => code)).toEqual(Object.values(EXIT_CODES));
  });
});

describe("describeError: the line", () => {
  it("scrubs credentials a client remembered and credential shapes, not only store passwords", () => {
    rememberSecret("remembered-token-4711");
    const { line } = describeError(
      new SkeinError("refused remembered-token-4711 and sk-abcdefghijklmnop; url redis://:pw@host"),
      ["pw"],
    );
    expect(line).not.toContain("remembered-token-4711");
    expect(line).not.toContain("abcdefghijklmnop");
    expect(line).not.toContain(":pw@");
    expect(line).toContain("refused ***");
  });

  it("shows control characters as escapes, on one short line", () => {
    const { line } = describeError(new SkeinError("bad \u001b]0;pwned\u0007 id\nsecond \u009b2J line"));
    expect(line).toBe("[thread-core] bad \\u001b]0;pwned\\u0007 id second \\u009b2J line");
    const long = describeError(new SkeinError(`x${"\u001b".repeat(10_000)}`)).line;
    expect(long.length).toBeLessThanOrEqual(501);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
    expect(long).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it("a line too long loses its middle: what failed and the words skein adds after it stay", () => {
    const { line } = describeError(new RangeError(`at ${"end.".repeat(1_000)}end`));
    expect(line.length).toBe(501);
    expect(line).toMatch(/^internal error: RangeError: at end\.end\.[^…]*…[^…]*end\.end; please report it/);
    expect(line).toMatch(/please report it with the command that caused it$/);
  });
});
