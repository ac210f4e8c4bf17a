import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "./own-types-example.js";

const example = new URL("./own-types-example.ts", import.meta.url);

describe('README "Your own types"', () => {
  it("is the example file, verbatim", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const block = readme.split("<!-- own-types-example")[1]?.split("```ts\n")[1]?.split("```")[0];
    expect(block?.trimEnd()).toBe(readFileSync(example, "utf8").trimEnd());
  });

  it("runs: a ticket with its fields, fork and migrated v1, and a provider's typed state", async () => {
    expect(await main()).toBe('acme.ticket normal; remembers "I use Firefox"; old ticket: high');
  });
});
