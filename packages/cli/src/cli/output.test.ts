import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { Output } from "./output.js";

/** A destination that fails every write, as a full disk does (ENOSPC): it errors, then closes itself. */
function fullDisk(): Writable {
  const stream = new Writable({
    highWaterMark: 1,
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }));
    },
  });
  stream.on("error", () => {});
  return stream;
}

describe("Output on a stream that fails", () => {
  it("rejects the write whose drain can never come, with the stream's error", async () => {
    const output = new Output(fullDisk());
    await expect(output.data("x".repeat(100))).rejects.toMatchObject({ code: "ENOSPC" });
  });

  it("rejects a later write at once: the stream closed itself and will never drain again", async () => {
    const stream = fullDisk();
    const output = new Output(stream);
    await output.data("a").catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.destroyed).toBe(true);
    await expect(output.data("b")).rejects.toMatchObject({ code: "ENOSPC" });
  });
});
