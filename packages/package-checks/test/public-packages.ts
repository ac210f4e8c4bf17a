// The packages a user installs: every packages/<name> whose package.json is not private, found at run time.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "./readme-blocks.js";

export interface PublicPackage {
  /** The folder under packages/. */
  directory: string;
  path: string;
  manifest: Manifest;
}

export interface Manifest {
  name: string;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  homepage?: string;
  bugs?: { url?: string };
  engines?: { node?: string };
  exports?: Record<string, unknown>;
  bin?: Record<string, string>;
  files?: string[];
  scripts?: Record<string, string>;
  private?: boolean;
}

export function readManifest(path: string): Manifest {
  return JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as Manifest;
}

export function publicPackages(): PublicPackage[] {
  const packages = join(repositoryRoot, "packages");
  return readdirSync(packages)
    .sort()
    .map((directory) => ({ directory, path: join(packages, directory) }))
    .filter(({ path }) => existsSync(join(path, "package.json")))
    .map((entry) => ({ ...entry, manifest: readManifest(entry.path) }))
    .filter(({ manifest }) => !manifest.private);
}
