import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sqliteAdapter, sqliteThreadType } from "./sqlite-store-example.js";

describe('README "Writing a store"', () => {
  it("shows the SQLite skeleton verbatim (this package's tsc --noEmit type-checks the file)", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const block = readme
      .split("test/sqlite-store-example.ts, verbatim -->")[1]
      ?.split("```ts\n")[1]
      ?.split("```")[0];
    expect(block?.trimEnd()).toBe(
      readFileSync(new URL("./sqlite-store-example.ts", import.meta.url), "utf8").trimEnd(),
    );
  });

  it("gives a thread type and an adapter for its scheme", () => {
    expect(sqliteThreadType.type).toBe("acme.sqlite");
    expect(sqliteAdapter().schemes).toEqual(["sqlite"]);
  });
});
