import { describe, expect, it } from "vitest";
import { withContextProviders } from "./context-provider.js";
import { createRegistry } from "./create-registry.js";
import { SkeinError } from "./errors.js";
import { LocalStore } from "./local/local-store.js";
import type { LogDriver } from "./local/log-driver.js";
import { MemoryLogDriver } from "./memory/memory-log-driver.js";
import type { ThreadRunner } from "./runner.js";
import { UnsupportedSpecificationError } from "./specification-version.js";
import { openStore } from "./store/open-store.js";
import type { SkeinAdapter, ThreadStore } from "./store/store.js";
import { registeredStoreAdapter, registerStoreAdapter } from "./store/store-schemes.js";
import { defineThreadType, ThreadStateSchema, type ThreadType } from "./thread-type.js";
import { tracedRunner } from "./tracing/traced-runner.js";

/** What `action` threw; fails if it returned. */
async function refusal(action: () => unknown): Promise<UnsupportedSpecificationError> {
  try {
    await action();
  } catch (error) {
    expect(UnsupportedSpecificationError.isInstance(error)).toBe(true);
    expect(SkeinError.isInstance(error)).toBe(true);
    return error as UnsupportedSpecificationError;
  }
  throw new Error("expected an UnsupportedSpecificationError");
}

/** A thread type written to a contract version this build does not know. */
function typeOfVersion(specificationVersion: unknown, type = "acme.future"): ThreadType {
  return {
    ...defineThreadType({ type, schema: ThreadStateSchema }),
    specificationVersion,
  } as unknown as ThreadType;
}

function adapterOfVersion(specificationVersion: unknown, extra: Partial<SkeinAdapter> = {}): SkeinAdapter {
  return {
    specificationVersion,
    packageName: "@acme/skein-future",
    schemes: ["acme-future"],
    types: [typeOfVersion("v1", "acme.carried")],
    ...extra,
  } as unknown as SkeinAdapter;
}

describe("specificationVersion where contracts are accepted", () => {
  it("register refuses a thread type of another version, naming it and the versions supported", async () => {
    const registry = createRegistry();
    const error = await refusal(() => registry.register(typeOfVersion("v2")));
    expect(error).toMatchObject({
      contract: 'thread type "acme.future"',
      specificationVersion: "v2",
      supportedVersions: ["v1"],
    });
    expect(error.message).toBe(
      '[thread-core] The thread type "acme.future" declares specificationVersion "v2"; this build of @skein/thread-core supports specificationVersion "v1" only. Use a release of the package that provides it made for this thread-core, or upgrade @skein/thread-core.',
    );
    expect(registry.has("acme.future")).toBe(false);
    await refusal(() => registry.ensure(typeOfVersion(2)));
    expect(registry.has("acme.future")).toBe(false);
  });

  it("register takes a v1 type, and a type that declares no version (written before types declared one)", () => {
    const registry = createRegistry();
    registry.register(defineThreadType({ type: "acme.plain", schema: ThreadStateSchema }));
    registry.register(typeOfVersion("v1", "acme.declared"));
    expect(registry.has("acme.plain") && registry.has("acme.declared")).toBe(true);
  });

  it("openStore refuses an adapter of another version before registering any of its types", async () => {
    const registry = createRegistry();
    const error = await refusal(() => openStore("memory:", { registry, adapters: [adapterOfVersion("v2")] }));
    expect(error).toMatchObject({ contract: "adapter @acme/skein-future", specificationVersion: "v2" });
    expect(registry.has("acme.carried")).toBe(false);
    // Declaring none is not declaring v1: the adapter contract has always required the field.
    await refusal(() => openStore("memory:", { registry, adapters: [adapterOfVersion(undefined)] }));
  });

  it("openStore refuses, and closes, a store that an adapter opened to another version", async () => {
    let closed = 0;
    const future = { specificationVersion: "v2", close: async () => void closed++ } as unknown as ThreadStore;
    const adapter = adapterOfVersion("v1", { openStore: async () => future });
    const error = await refusal(() =>
      openStore("acme-future://somewhere", { registry: createRegistry(), adapters: [adapter] }),
    );
    expect(error).toMatchObject({
      contract: "store that adapter @acme/skein-future opened",
      specificationVersion: "v2",
    });
    expect(closed).toBe(1);
  });

  it("registerStoreAdapter refuses an adapter of another version, and its schemes stay unregistered", async () => {
    await refusal(() =>
      registerStoreAdapter(() =>
        adapterOfVersion("v2", { schemes: ["acme-refused"], openStore: async () => ({}) as ThreadStore }),
      ),
    );
    expect(registeredStoreAdapter("acme-refused")).toBeUndefined();
  });

  it("a local store refuses a log driver of another version", async () => {
    const driver = new MemoryLogDriver();
    const future = Object.assign(Object.create(driver) as LogDriver, { specificationVersion: "v2" });
    const error = await refusal(
      () => new LocalStore({ driver: future, registry: createRegistry(), url: "memory:" }),
    );
    expect(error).toMatchObject({ contract: "log driver of thread-core", specificationVersion: "v2" });
  });

  it("tracedRunner and withContextProviders refuse a runner of another version", async () => {
    const runner = { specificationVersion: "v2", supports: () => true, run: async () => [] };
    const future = runner as unknown as ThreadRunner;
    expect(await refusal(() => tracedRunner(future))).toMatchObject({ specificationVersion: "v2" });
    expect(await refusal(() => withContextProviders(future, []))).toMatchObject({
      specificationVersion: "v2",
    });
  });
});
