import { describe, expect, it } from "vitest";
import { createProgress } from "./progress.js";

/** A stream that keeps what is written, as a terminal (`isTTY`) or as a log file. */
function collector(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, columns: 100, write: (text: string) => written.push(text) } };
}

describe("createProgress", () => {
  it("shows control characters in its label and note instead of writing them", () => {
    for (const isTTY of [true, false]) {
      const { written, stream } = collector(isTTY);
      const progress = createProgress(stream, "migrate\u001b]0;pwned\u0007");
      progress.update(10, 10, "note\u009b2J");
      progress.finish();
      const text = written.join("");
      expect(text).toContain("migrate\\u001b]0;pwned\\u0007");
      expect(text).toContain("note\\u009b2J");
      // The bar's own `\r` and erase-line escape are the only control characters it writes.
      const own = text.replaceAll("\r", "").replaceAll("\u001b[K", "").replaceAll("\n", "");
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
      expect(own, `isTTY ${isTTY}`).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
  });
});
