import { defineConfig } from "tsup";

export default defineConfig([
  {
    // The server: Node, with @skein/* left as imports.
    entry: { index: "src/index.ts" },
    format: ["esm"],
    dts: true,
    // Not cleaned: the page's bundle shares dist/ and is built beside it.
    clean: false,
    sourcemap: true,
    target: "node20",
  },
  {
    // The page: one script and one stylesheet, Preact bundled in, served by the server itself.
    entry: { app: "src/client/main.tsx" },
    outDir: "dist/client",
    clean: true,
    format: ["esm"],
    platform: "browser",
    target: "es2022",
    minify: true,
    noExternal: [/.*/],
    esbuildOptions(options) {
      options.jsx = "automatic";
      options.jsxImportSource = "preact";
    },
    async onSuccess() {
      const { copyFile } = await import("node:fs/promises");
      await copyFile("src/client/app.css", "dist/client/app.css");
    },
  },
]);
