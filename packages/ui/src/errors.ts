import { SkeinError } from "@skein/thread-core";

/** A request the UI server refuses: a missing token, a bad parameter, a write in read-only mode. */
export class UiRequestError extends SkeinError {
  static override readonly marker: string = "skein.ui.UiRequestError";
  constructor(
    /** The HTTP status the server answers with. */
    readonly status: number,
    message: string,
    /** The library's own error, when the request was refused because of it. */
    cause?: unknown,
  ) {
    super(message, { source: "ui", ...(cause === undefined ? {} : { cause }) });
  }
}

/** The browser bundle is not where the server looks for it: the package was not built. */
export class UiAssetsMissingError extends SkeinError {
  static override readonly marker: string = "skein.ui.UiAssetsMissingError";
  constructor(readonly directory: string) {
    super(
      `The page's files are missing from ${directory}. Build the package first: npm run build (at the repository root).`,
      { source: "ui" },
    );
  }
}

/**
 * `startUi` was given an option it cannot use (`option` names it, `expected` says what it takes, `received`
 * what it got). Raised before the server listens, so a bad port never turns into a pipe path and a bad store
 * never into a server that answers 500 to everything.
 */
export class UiOptionsError extends SkeinError {
  static override readonly marker: string = "skein.ui.UiOptionsError";
  constructor(
    readonly option: string,
    readonly expected: string,
    readonly received: string,
  ) {
    super(`startUi needs ${option} to be ${expected}, not ${received}; no server was started.`, {
      source: "ui",
    });
  }
}
