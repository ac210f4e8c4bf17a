import { describe, expect, it } from "vitest";
import { InvalidStoreUrlError } from "../errors.js";
import type { LogDriver } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import { openStore } from "../store/open-store.js";
import { runConformanceSuite } from "../testing/conformance.js";
import { defineLogStore } from "./define-log-store.js";

/** A memory driver under another type id: a stand-in for a third-party backend. */
function acmeDriver(nativeType = "acme.log"): LogDriver {
  const inner = new MemoryLogDriver();
  return new Proxy(inner, {
    get(target, property) {
      if (property === "nativeType") return nativeType;
      if (property === "source") return "acme-log";
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const acme = defineLogStore<{ name: string }>({
  type: "acme.log",
  packageName: "acme-log",
  schemes: ["acmelog"],
  createDriver: () => acmeDriver(),
  optionsFromUrl: (url, options) => ({ name: url.hostname, ...options }),
  describe: (options) => `acmelog://${options.name}`,
});

describe("defineLogStore", () => {
  it("gives a thread type, a store factory and an adapter whose scheme openStore finds by itself", async () => {
    const store = await openStore("acmelog://first");
    expect(store.url).toBe("acmelog://first");
    expect(store.nativeType).toBe("acme.log");
    const thread = await store.create({ id: "t" });
    await thread.append({ role: "user", text: "hi" });
    expect(JSON.parse(JSON.stringify(thread))).toMatchObject({ $type: "acme.log", id: "t" });
    expect(await (await store.get("t")).messages()).toHaveLength(1);
    await store.close();

    const direct = acme.store({ name: "second" });
    expect(direct.url).toBe("acmelog://second");
    expect(acme.adapter().types).toEqual([acme.threadType]);
    const given = await openStore("acmelog://third", { adapters: [acme.adapter({ name: "named" })] });
    expect(given.url).toBe("acmelog://named");
    await Promise.all([direct.close(), given.close()]);
  });

  it("hands a URL string as written to optionsFromText, and the options to verify", async () => {
    const seen: string[] = [];
    const relative = defineLogStore<{ path: string }>({
      type: "acmerel.log",
      packageName: "acme-relative",
      schemes: ["acmerel"],
      createDriver: () => acmeDriver("acmerel.log"),
      optionsFromUrl: (url, options) => ({ path: url.pathname, ...options }),
      optionsFromText: (text, options) => ({ path: text.slice("acmerel:".length), ...options }),
      describe: (options) => `acmerel:${options.path}`,
      async verify(_driver, options) {
        seen.push(options.path);
        if (options.path.includes("refuse")) throw new InvalidStoreUrlError(options.path, "refused");
      },
    });
    // `new URL("acmerel:./here")` would be "./here" too, but a file: URL would lose it: only the text has it.
    const fromText = await relative.adapter().openStore("acmerel:./here/../there");
    expect(fromText.url).toBe("acmerel:./here/../there");
    const fromUrl = await relative.adapter().openStore(new URL("acmerel:/abs/../x"));
    expect(fromUrl.url).toBe("acmerel:/x");
    await expect(relative.adapter().openStore("acmerel:refuse")).rejects.toBeInstanceOf(InvalidStoreUrlError);
    expect(seen).toEqual(["./here/../there", "/x", "refuse"]);
    // Without optionsFromText a string is parsed as a URL, and one that is none is refused by name.
    expect((await acme.adapter().openStore("acmelog://text")).url).toBe("acmelog://text");
    await expect(acme.adapter().openStore("acmelog://u:secret@[")).rejects.toThrow(/u:\*\*\*@/);
    await Promise.all([fromText.close(), fromUrl.close()]);
  });

  it("names every scheme it can open when a URL's is unknown", async () => {
    const error = await openStore("nosuch://x").then(
      () => new Error("opened"),
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(InvalidStoreUrlError);
    expect(error.message).toContain("acmelog:");
    expect(error.message).toContain("postgres:");
  });
});

runConformanceSuite({
  name: "a store made by defineLogStore",
  createStore: () => openStore("acmelog://suite"),
  describe,
  it,
});
