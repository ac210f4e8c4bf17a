import { once } from "node:events";
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
    if (!this.stream.write(text)) await once(this.stream, "drain");
  }
}
