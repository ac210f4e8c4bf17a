import { describe, expect, it } from "vitest";
import { InvalidStoreUrlError } from "../errors.js";
import type { LogDriver } from "../local/log-driver.js";
import { MemoryLogDriver } from "../memory/memory-log-driver.js";
import { openStore } from "../store/open-store.js";
import { runConformanceSuite } from "../testing/conformance.js";
import { defineLogStore } from "./define-log-store.js";

/** A memory driver under another type id: a stand-in for a third-party backend. */
function acmeDriver(): LogDriver {
  const inner = new MemoryLogDriver();
  return new Proxy(inner, {
    get(target, property) {
      if (property === "nativeType") return "acme.log";
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
});
