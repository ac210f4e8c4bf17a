// A store package whose stores are always encrypted at rest, for CLI tests of encrypted stores: an fs store
// under the `sealedfs:` scheme, sealed with the 32-byte key given in hex by SKEIN_TEST_SEALED_KEY.
import { FsLogDriver } from "@skein/adapter-fs";
import { defineLogStore } from "@skein/thread-core/driver";

function sealedDriver(directory) {
  const inner = new FsLogDriver({ directory });
  return new Proxy(inner, {
    get(target, property) {
      if (property === "nativeType") return "sealed.fs";
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

export const { adapter: sealedAdapter } = defineLogStore({
  type: "sealed.fs",
  packageName: "sealed-store",
  schemes: ["sealedfs"],
  createDriver: (options) => sealedDriver(options.directory),
  optionsFromUrl: (url, options) => ({
    directory: decodeURIComponent(url.pathname),
    encryption: {
      keys: { "test-key": Buffer.from(process.env.SKEIN_TEST_SEALED_KEY ?? "", "hex") },
      current: "test-key",
    },
    ...options,
  }),
  describe: (options) => `sealedfs:${options.directory}`,
});
