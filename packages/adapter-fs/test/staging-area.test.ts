import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { describe, expect, it } from "vitest";
import { LockLostError } from "../src/errors.js";
import { StagingArea } from "../src/locks/staging-area.js";

const NONCE = "0123456789abcdef01234567";

describe("a lock holding's staged files", () => {
  it.each([
    ["a small file", 100],
    ["a file over the limit written at once (a whole history)", 200_000],
  ])("stages %s whole, named by the holding, when the lock is still its own", async (_, size) => {
    const directory = await temporaryDirectory();
    const staging = new StagingArea(join(directory, "t.lock"), NONCE, () => true);
    const data = "x".repeat(size);
    const staged = await staging.stageLarge("commit", join(directory, "t.events"), data);
    expect(staged.temporary).toBe(join(directory, `t.lock.${NONCE}.0.tmp`));
    expect(readFileSync(staged.temporary, "utf8")).toBe(data);
  });

  it.each([100, 200_000])(
    "refuses a file of %i bytes staged after the lock was lost, and leaves none",
    async (size) => {
      const directory = await temporaryDirectory();
      const staging = new StagingArea(join(directory, "t.lock"), NONCE, () => false);
      await expect(
        staging.stageLarge("commit", join(directory, "t.events"), "x".repeat(size)),
      ).rejects.toBeInstanceOf(LockLostError);
      expect(existsSync(join(directory, `t.lock.${NONCE}.0.tmp`))).toBe(false);
    },
  );
});
