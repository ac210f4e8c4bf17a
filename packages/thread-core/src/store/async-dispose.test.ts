import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { StoreClosedError } from "../errors.js";
import { createMemoryStore } from "../memory/memory-thread-type.js";
import { openStore } from "./open-store.js";
import type { ThreadStore } from "./store.js";

describe("await using a store", () => {
  it("closes the store when its scope ends", async () => {
    let escaped: ThreadStore | undefined;
    {
      await using store = await openStore("memory:");
      escaped = store;
      await store.create({ id: "kept-inside" });
      expect((await store.get("kept-inside")).id).toBe("kept-inside");
    }
    await expect(escaped.get("kept-inside")).rejects.toSatisfy((error) => StoreClosedError.isInstance(error));
  });

  it("closes it when the scope ends with an error, and the error still surfaces", async () => {
    const store = createMemoryStore({ registry: createRegistry() });
    const failing = async () => {
      await using scoped = store;
      await scoped.create({ id: "a" });
      throw new Error("the work failed");
    };
    await expect(failing()).rejects.toThrow("the work failed");
    await expect(store.list()).rejects.toSatisfy((error) => StoreClosedError.isInstance(error));
  });
});
