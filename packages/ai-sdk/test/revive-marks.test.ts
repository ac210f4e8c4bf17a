// Revive marks are read from stored threads, which are untrusted input: they may only touch the stored value.
import { describe, expect, it } from "vitest";
import { reviveValue, storeValue } from "../src/revive.js";

describe("revive marks from a stored thread", () => {
  it("give back URL objects and bytes where the value had them", () => {
    const value = { url: new URL("https://example.com/a"), bytes: new Uint8Array([1, 2, 3]) };
    const { json, revive } = storeValue(value);
    const again = reviveValue(json, revive) as typeof value;
    expect(again.url).toBeInstanceOf(URL);
    expect(again.url.href).toBe("https://example.com/a");
    expect(again.bytes).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("never reach past the value: a path through __proto__ or constructor changes nothing", () => {
    const hostile = [
      { path: ["__proto__", "skeinPolluted"], as: "url" },
      { path: ["constructor", "prototype", "skeinPolluted"], as: "buffer" },
    ];
    expect(reviveValue({ a: "x" }, hostile)).toEqual({ a: "x" });
    expect("skeinPolluted" in {}).toBe(false);
  });
});
