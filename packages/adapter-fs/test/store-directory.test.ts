import { spawn } from "node:child_process";
import { access, chmod, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import { createRegistry, InvalidStoreUrlError, openStore, StoreUnavailableError } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fsAdapter, fsStore, StoreDirectoryError, StoreNotFoundError } from "../src/index.js";

const packageRoot = fileURLToPath(new URL("../", import.meta.url));
const child = fileURLToPath(new URL("./children/open-store.ts", import.meta.url));
/** `nobody` on Debian, as scripts/postgres-server.mjs runs postgres: an unprivileged user. */
const NOBODY = { uid: 65534, gid: 65534 };
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

interface Outcome {
  opened?: string;
  name?: string;
  code?: string;
  message?: string;
  cause?: string;
}

/**
 * Opens `url` in a child process, killed after 60 s: Node 20's recursive mkdir loops forever on /proc, and
 * a hang must fail this test rather than hold the suite.
 */
function openInChild(url: string, user?: { uid: number; gid: number }): Promise<Outcome> {
  const process_ = spawn(process.execPath, ["--import", "tsx", child, url], {
    cwd: packageRoot,
    stdio: ["ignore", "pipe", "pipe"],
    ...(user ?? {}),
  });
  let stdout = "";
  let stderr = "";
  process_.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  process_.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const killer = setTimeout(() => process_.kill("SIGKILL"), 60_000);
  return new Promise((resolve, reject) => {
    process_.on("error", reject);
    process_.on("close", (code, signal) => {
      clearTimeout(killer);
      if (signal === "SIGKILL") reject(new Error(`opening ${url} did not finish in 60 s: it hangs`));
      else if (code !== 0) reject(new Error(`the child exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout.trim()) as Outcome);
    });
  });
}

describe("a store directory that cannot be made", () => {
  it("file:/proc/… fails with StoreDirectoryError, and does not loop in mkdir", async () => {
    const outcome = await openInChild("file:/proc/skein-forbidden");
    expect(outcome).toMatchObject({ name: "StoreDirectoryError", code: "ENOENT", cause: "ENOENT" });
    expect(outcome.message).toContain("/proc/skein-forbidden");
  });

  it("file:/sys/… fails with StoreDirectoryError whose cause is the EPERM", async () => {
    const outcome = await openInChild("file:/sys/skein-forbidden");
    expect(outcome).toMatchObject({ name: "StoreDirectoryError", cause: outcome.code });
    expect(["EPERM", "EACCES", "ENOENT"]).toContain(outcome.code);
    expect(outcome.message).toContain("/sys/skein-forbidden");
  });

  it("fails in this process too, whatever the path (a StoreUnavailableError with the system error as cause)", async () => {
    const directory = await temporaryDirectory();
    await writeFile(join(directory, "a-file"), "");
    const url = pathToFileURL(join(directory, "a-file", "store")).href;
    const error = await openStore(url, { registry: createRegistry() }).catch((caught: unknown) => caught);
    expect(StoreDirectoryError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "ENOTDIR", path: join(directory, "a-file", "store") });
    // fsStore, which makes its directories on first use, fails the same way.
    const store = fsStore({ directory: "/proc/skein-forbidden/store", registry: createRegistry() });
    await expect(store.list()).rejects.toSatisfy((caught) => StoreDirectoryError.isInstance(caught));
    await store.close();
  });

  it.skipIf(!isRoot)(
    "a directory an unprivileged user may not write fails with StoreDirectoryError (EACCES), not a raw error",
    // Skipped when not root: the test needs to run the opener as `nobody`, which only root can.
    async () => {
      const directory = await temporaryDirectory();
      const owned = join(directory, "root-owned");
      await mkdir(owned);
      await chmod(directory, 0o755);
      await chmod(owned, 0o755);
      const outcome = await openInChild(`file:${owned}/sub/store`, NOBODY);
      expect(outcome).toMatchObject({ name: "StoreDirectoryError", code: "EACCES", cause: "EACCES" });
      expect(outcome.message).toContain(join(owned, "sub"));
      expect(await readdir(owned)).toEqual([]);
    },
  );
});

describe("a store URL without a path", () => {
  it('openStore("file:") is refused, and creates nothing in the working directory', async () => {
    const before = await readdir(process.cwd());
    for (const url of ["file:", "file://", "file:?durability=batch"]) {
      await expect(openStore(url, { registry: createRegistry() }), url).rejects.toSatisfy((error) =>
        InvalidStoreUrlError.isInstance(error),
      );
    }
    expect(await readdir(process.cwd())).toEqual(before);
  });

  it('"file:." opens the working directory, said explicitly', async () => {
    const directory = await temporaryDirectory();
    const cwd = process.cwd();
    process.chdir(directory);
    try {
      const store = await openStore("file:.", { registry: createRegistry() });
      await store.create({ id: "here" });
      await store.close();
      expect(await readdir(join(directory, "records"))).toEqual(["here.json"]);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("create: false", () => {
  it("opens an existing store, and refuses a path without one with StoreNotFoundError, creating nothing", async () => {
    const directory = await temporaryDirectory();
    const reading = fsAdapter({ create: false });
    const missing = join(directory, "typo", "store");
    const error = await reading
      .openStore(`file:${missing}`, { registry: createRegistry() })
      .catch((caught: unknown) => caught);
    expect(StoreNotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ directory: missing });
    expect((error as Error).message).toMatch(/No store at .*typo\/store: the directory does not exist/);
    await expect(access(join(directory, "typo"))).rejects.toThrow(/ENOENT/);
    // A directory that exists but holds no store is left as it was.
    const empty = join(directory, "empty");
    await mkdir(empty);
    await expect(reading.openStore(`file:${empty}`, { registry: createRegistry() })).rejects.toSatisfy(
      (caught) => StoreNotFoundError.isInstance(caught),
    );
    expect(await readdir(empty)).toEqual([]);
    // fsStore with create: false fails on its first operation the same way.
    const store = fsStore({ directory: empty, create: false, registry: createRegistry() });
    await expect(store.list()).rejects.toSatisfy((caught) => StoreNotFoundError.isInstance(caught));
    await store.close();
    expect(await readdir(empty)).toEqual([]);
    // Once a store is there, it opens.
    const made = await fsAdapter().openStore(`file:${empty}`, { registry: createRegistry() });
    await made.create({ id: "kept" });
    await made.close();
    const opened = await reading.openStore(`file:${empty}`, { registry: createRegistry() });
    expect((await opened.list()).items.map((item) => item.id)).toEqual(["kept"]);
    await opened.close();
  });
});
