import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { watchSegment } from "./segment-watch.js";

const made: string[] = [];
afterEach(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function wokenWithin(count: () => number, milliseconds: number): Promise<boolean> {
  return new Promise((resolve) => {
    const started = Date.now();
    const check = setInterval(() => {
      if (count() > 0 || Date.now() - started > milliseconds) {
        clearInterval(check);
        resolve(count() > 0);
      }
    }, 5);
  });
}

describe("watchSegment", () => {
  it("wakes a follower that came before the segment's directory once the first batch makes it", async () => {
    const segments = mkdtempSync(join(tmpdir(), "skein-watch-"));
    made.push(segments);
    const directory = join(segments, "reply-segment");
    let wakeups = 0;
    const stop = watchSegment(directory, () => wakeups++);
    try {
      mkdirSync(directory);
      writeFileSync(join(directory, "messages"), "batch 0\n");
      expect(await wokenWithin(() => wakeups, 2_000)).toBe(true);
      // From then on the segment's own files wake it.
      wakeups = 0;
      writeFileSync(join(directory, "messages"), "batch 1\n", { flag: "a" });
      expect(await wokenWithin(() => wakeups, 2_000)).toBe(true);
    } finally {
      stop();
    }
  });
});
