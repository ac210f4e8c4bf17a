import { visibleText } from "../format/visible-text.js";

/**
 * A stream written in lines. Waits for `drain` when the stream's buffer is full, so exporting a large
 * store to a slow pipe holds one page in memory, not the whole export.
 *
 * Text for people (`line`, `lines`) has its control characters rendered visibly, so a hostile id, message
 * or label cannot drive the terminal; data for programs (`json`, `data`) is written exactly.
 */
export class Output {
  constructor(readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }) {}

  get isTTY(): boolean {
    return this.stream.isTTY === true;
  }

  /** One line for people: a line feed or tab inside `text` shows as `\u000a`, `\u0009`. */
  async line(text = ""): Promise<void> {
    await this.write(`${visibleText(text, "line")}\n`);
  }

  /** Lines for people (help, a transcript): line feeds and tabs kept, every other control character shown. */
  async lines(text: string): Promise<void> {
    await this.write(`${visibleText(text, "lines")}\n`);
  }

  /** Pretty-printed JSON, one document, exactly. */
  async json(value: unknown): Promise<void> {
    await this.data(JSON.stringify(value, null, 2));
  }

  /** A line of data for programs (an export), written exactly as given. */
  async data(text: string): Promise<void> {
    await this.write(`${text}\n`);
  }

  private async write(text: string): Promise<void> {
    const stream = this.stream as OutputStream;
    // A stream that failed (a full disk) closes itself and never drains again: waiting would hang.
    if (stream.destroyed)
      throw stream.errored ?? new Error("[cli] the output was closed before it took everything");
    if (!stream.write(text)) await drained(stream);
  }
}

type OutputStream = NodeJS.WritableStream & { destroyed?: boolean; errored?: Error | null };

/** Resolves at `drain`; rejects if the stream fails or closes first (it would never drain then). */
function drained(stream: OutputStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: unknown) => {
      stream.off("drain", onDrain);
      stream.off("error", onError);
      stream.off("close", onClose);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = () => settle();
    const onError = (error: unknown) => settle(error);
    const onClose = () =>
      settle(stream.errored ?? new Error("[cli] the output was closed before it took everything"));
    stream.on("drain", onDrain);
    stream.on("error", onError);
    stream.on("close", onClose);
  });
}
