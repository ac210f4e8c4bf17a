import { access, readdir, rm } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { createRegistry, InvalidStoreUrlError, openStore } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fsAdapter, fsThreadType, parseFileUrl } from "../src/index.js";

describe("file: store URLs", () => {
  it("openStore resolves @skein/adapter-fs for file:///absolute URLs and creates the directory", async () => {
    const directory = join(await temporaryDirectory(), "nested", "store");
    const registry = createRegistry();
    const store = await openStore(pathToFileURL(directory).href, { registry });
    expect(store.nativeType).toBe("fs");
    expect(registry.get("fs")).toBe(fsThreadType);
    const thread = await store.create({ id: "via-open-store" });
    await thread.append({ role: "user", text: "hello" });
    const again = await store.open(JSON.parse(JSON.stringify(thread)));
    expect(await again.messages()).toHaveLength(1);
    // A new thread's (empty) history is inline in its record until its first event.
    expect(await readdir(join(directory, "records"))).toEqual(["via-open-store.json"]);
    await thread.checkpoint();
    expect((await readdir(join(directory, "records"))).sort()).toEqual([
      "via-open-store.events",
      "via-open-store.json",
    ]);
    await store.close();
  });

  it("takes durability from the URL", async () => {
    const directory = await temporaryDirectory();
    const store = await openStore(`${pathToFileURL(directory).href}?durability=batch`, {
      registry: createRegistry(),
    });
    await (await store.create({ id: "batched" })).append({ role: "user", text: "fast" });
    await store.close();
    const reopened = await openStore(pathToFileURL(directory).href, { registry: createRegistry() });
    expect(await (await reopened.get("batched")).messages()).toHaveLength(1);
    await reopened.close();
    await expect(openStore(`${pathToFileURL(directory).href}?durability=never`)).rejects.toBeInstanceOf(
      InvalidStoreUrlError,
    );
  });

  it("opens file:./relative, file:relative and file:/absolute given as strings to the adapter", async () => {
    const directory = await temporaryDirectory();
    const fromCwd = relative(process.cwd(), directory);
    for (const [url, expected] of [
      [`file:./${fromCwd}/dot`, join(directory, "dot")],
      [`file:${fromCwd}/bare`, join(directory, "bare")],
      [`file:${directory}/rooted`, join(directory, "rooted")],
      [`file://${directory}/slashes`, join(directory, "slashes")],
      [`file:./${fromCwd}/with%20space?durability=batch`, join(directory, "with space")],
    ] as const) {
      expect(parseFileUrl(url).directory).toBe(expected);
      const store = await fsAdapter().openStore(url, { registry: createRegistry() });
      await store.create({ id: "here" });
      await access(join(expected, "records", "here.json"));
      await store.close();
    }
    expect(parseFileUrl("file:./x").directory).toBe(resolve("x"));
    expect(parseFileUrl("file:x?durability=fsync")).toEqual({ directory: resolve("x"), durability: "fsync" });
  });

  it("rejects URLs that name no local directory", () => {
    for (const url of [
      "file:",
      "file://",
      "http://example.com/x",
      "file://remote-host/share",
      "file:x?durability=sometimes",
    ]) {
      expect(() => parseFileUrl(url)).toThrow(InvalidStoreUrlError);
    }
  });

  it('openStore("file:./relative") opens ./relative', async () => {
    const name = `.skein-relative-${process.pid}`;
    const store = await openStore(`file:./${name}`, { registry: createRegistry() });
    try {
      await store.create({ id: "here" });
      await access(join(process.cwd(), name, "records", "here.json"));
    } finally {
      await store.close();
      await rm(join(process.cwd(), name), { recursive: true, force: true });
    }
  });
});
