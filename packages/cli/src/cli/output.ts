import { once } from "node:events";

/**
 * A stream written in lines. Waits for `drain` when the stream's buffer is full, so exporting a large
 * store to a slow pipe holds one page in memory, not the whole export.
 */
export class Output {
  constructor(readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }) {}

  get isTTY(): boolean {
    return this.stream.isTTY === true;
  }

  async write(text: string): Promise<void> {
    if (!this.stream.write(text)) await once(this.stream, "drain");
  }

  async line(text = ""): Promise<void> {
    await this.write(`${text}\n`);
  }

  /** Pretty-printed JSON, one document. */
  async json(value: unknown): Promise<void> {
    await this.line(JSON.stringify(value, null, 2));
  }
}
