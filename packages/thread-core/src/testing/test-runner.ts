/**
 * A test function of your runner: vitest's or jest's `it`/`test`, mocha's `it`, node:test's `it`. The suites
 * register their cases through it and import no runner themselves.
 */
export interface TestFunction {
  (name: string, body: () => Promise<void>, timeout?: number): unknown;
  /** The runner's static skip (`it.skip`); without it, a skipped case is registered as a passing one. */
  skip?: (name: string, body: () => Promise<void>) => unknown;
}

/** The options every suite of `@skein/thread-core/testing` takes, besides what it creates for each case. */
export interface SuiteOptions {
  /** Shown in test names, e.g. "redis (cluster)". */
  name: string;
  /** Runs after each case's store or driver is closed (remove a temp directory, flush a database). */
  cleanup?: () => Promise<void>;
  /** Cases to skip, by name, each with the reason that is printed with the skip. */
  skip?: Record<string, string>;
  /** Your runner's `describe` (vitest, jest, mocha, node:test). */
  describe: (name: string, body: () => void) => unknown;
  /** Your runner's `it` or `test`. */
  it: TestFunction;
}

/** What a running case may do besides pass or fail. */
export interface CaseControl {
  /** Marks the running case skipped with its reason; the case must return right after. */
  skip(reason: string): void;
}

/**
 * Registers one named case, or its skip with the reason the options give for it. The body gets a
 * `CaseControl` whose `skip` goes through the runner's own dynamic skip.
 */
export function registerCase(
  options: SuiteOptions,
  name: string,
  body: (control: CaseControl) => Promise<void>,
  timeout?: number,
): void {
  const reason = options.skip?.[name];
  if (reason !== undefined) {
    const skipped = `${name} (skipped: ${reason})`;
    if (typeof options.it.skip === "function") options.it.skip(skipped, async () => {});
    else options.it(skipped, async () => {});
    return;
  }
  // A `function` with a rest parameter: the runner passes its test context (vitest, node:test) or binds it to
  // `this` (mocha), and a length of 0 keeps mocha from taking it for a callback-style test.
  options.it(
    name,
    async function (this: unknown, ...args: unknown[]) {
      await body({ skip: (why) => skipHere(why, this, args[0]) });
    },
    timeout,
  );
}

/**
 * Marks the running case skipped with its reason, through the runner's own dynamic skip: `context.skip`
 * (vitest, which throws to stop the case; node:test, which does not) or mocha's `this.skip()`. A runner
 * without one (jest) cannot skip a case once it runs: the case passes and the reason is written as a warning.
 */
function skipHere(reason: string, self: unknown, context: unknown): void {
  type Skips = { skip?: (note?: string) => void };
  const withSkip = [context, self].find(
    (candidate): candidate is Skips => typeof (candidate as Skips | undefined)?.skip === "function",
  );
  if (withSkip?.skip) withSkip.skip(reason);
  else console.warn(`case skipped: ${reason}`);
}
