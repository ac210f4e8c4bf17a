import { describe, expect, it } from "vitest";
import { storeUrlFrom } from "./open-cli-store.js";

describe("storeUrlFrom", () => {
  it("takes --store, else SKEIN_STORE, else the embedded default", () => {
    expect(storeUrlFrom("memory:", { SKEIN_STORE: "redis://x" })).toBe("memory:");
    expect(storeUrlFrom(undefined, { SKEIN_STORE: "redis://x" })).toBe("redis://x");
    expect(storeUrlFrom(undefined, { SKEIN_STORE: "" })).toBe("file:./.skein");
    expect(storeUrlFrom(undefined, {})).toBe("file:./.skein");
  });
});
