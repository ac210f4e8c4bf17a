import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../create-registry.js";
import { AdapterNotInstalledError, InvalidStoreUrlError } from "../errors.js";
import { defineThreadType, ThreadStateSchema } from "../thread-type.js";
import { loadStorePackage, openStore } from "./open-store.js";
import type { SkeinAdapter } from "./store.js";

describe("openStore", () => {
  it("opens memory: stores", async () => {
    const store = await openStore("memory:", { registry: createRegistry() });
    expect(store.nativeType).toBe("memory");
    expect(store.url).toBe("memory:");
    const thread = await store.create();
    await thread.append({ role: "user", text: "hi" });
    expect(await (await store.get(thread.id)).messages()).toHaveLength(1);
    await store.close();
    await expect(store.get(thread.id)).rejects.toThrow(/closed/);
  });

  it("resolves relative file: URLs against the working directory", async () => {
    const seen: string[] = [];
    const adapter: SkeinAdapter = {
      specificationVersion: "v1",
      packageName: "recording-adapter",
      schemes: ["file"],
      types: [],
      openStore: async (url) => {
        seen.push(url.href);
        return openStore("memory:", { registry: createRegistry() });
      },
    };
    for (const url of ["file:./.skein", "file:data/x?durability=batch", "file:///abs/dir"]) {
      await openStore(url, { adapters: [adapter], registry: createRegistry() });
    }
    expect(seen).toEqual([
      pathToFileURL(resolve(".skein")).href,
      `${pathToFileURL(resolve("data/x")).href}?durability=batch`,
      "file:///abs/dir",
    ]);
  });

  it("says which package to install for a missing adapter", async () => {
    const error = await loadStorePackage("@skein/adapter-nope", "nope").then(
      () => new Error("loaded"),
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(AdapterNotInstalledError);
    expect(error.message).toBe(
      '[thread-core] "nope:" stores need @skein/adapter-nope: npm install @skein/adapter-nope',
    );
  });

  it("rejects malformed and unknown URLs without echoing passwords", async () => {
    for (const url of ["", "not a url", "ftp://user:hunter2@host/x", "::::"]) {
      const error = await openStore(url).then(
        () => new Error("loaded"),
        (caught: unknown) => caught as Error,
      );
      expect(error).toBeInstanceOf(InvalidStoreUrlError);
      expect(error.message).not.toContain("hunter2");
    }
  });

  it("uses an adapter given in options for its scheme and registers its types", async () => {
    const registry = createRegistry();
    const noteType = defineThreadType({ type: "acme.note", schema: ThreadStateSchema });
    const adapter: SkeinAdapter = {
      specificationVersion: "v1",
      packageName: "acme-adapter",
      schemes: ["acme"],
      types: [noteType],
      openStore: async () => openStore("memory:", { registry }),
    };
    const store = await openStore("acme://somewhere", { adapters: [adapter], registry });
    expect(store.nativeType).toBe("memory");
    expect(registry.get("acme.note")).toBe(noteType);
  });
});
