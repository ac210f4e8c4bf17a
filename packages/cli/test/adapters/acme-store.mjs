// A third-party store package as the CLI sees one: importing it registers its URL scheme (acmefs:), so
// `skein --adapter ./acme-store.mjs --store acmefs:/dir …` opens it. Its logs live in files, through
// adapter-fs's driver under another thread type, so separate CLI runs see the same threads.
import { FsLogDriver } from "@skein/adapter-fs";
import { defineLogStore } from "@skein/thread-core/driver";

function acmeDriver(directory) {
  const inner = new FsLogDriver({ directory });
  return new Proxy(inner, {
    get(target, property) {
      if (property === "nativeType") return "acme.fs";
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

export const {
  threadType: acmeThreadType,
  store: acmeStore,
  adapter: acmeAdapter,
} = defineLogStore({
  type: "acme.fs",
  packageName: "acme-store",
  schemes: ["acmefs"],
  createDriver: (options) => acmeDriver(options.directory),
  optionsFromUrl: (url, options) => ({ directory: decodeURIComponent(url.pathname), ...options }),
  describe: (options) => `acmefs:${options.directory}`,
});
