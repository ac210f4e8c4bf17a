// Every error class a package exports names itself with an explicit marker (`static marker`), never by its class
// name, which a minifier changes and which two packages may share (langgraph's and ai-sdk's
// MessageMappingError): `X.isInstance` asks for the marker, so two classes with one marker would be taken for
// each other. Checked on the built entry points, as a user imports them.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { publicPackages } from "./public-packages.js";

const SKEIN_ERROR_MARKER = "skein.thread-core.SkeinError";

const entryPoints = publicPackages().flatMap(({ manifest }) =>
  Object.keys(manifest.exports ?? { ".": {} })
    .filter((path) => path !== "./package.json")
    .map((path) => `${manifest.name}${path.slice(1)}`),
);

/** What a child `node` reports of each error class an entry point exports: built code, imported as a user does. */
interface ExportedErrorClass {
  entry: string;
  name: string;
  ownMarker: boolean;
  marker: string | undefined;
}

/** Runs in a plain `node`: a class whose chain reaches thread-core's SkeinError, whichever copy it came from. */
const LIST_ERROR_CLASSES = `
const found = [];
for (const entry of JSON.parse(process.argv[1])) {
  const exported = await import(entry);
  for (const [name, value] of Object.entries(exported)) {
    let type = value;
    let skein = false;
    while (typeof type === "function") {
      if (Object.hasOwn(type, "marker") && type.marker === ${JSON.stringify(SKEIN_ERROR_MARKER)}) skein = true;
      type = Object.getPrototypeOf(type);
    }
    if (skein) found.push({ entry, name, value, ownMarker: Object.hasOwn(value, "marker"), marker: value.marker });
  }
}
const seen = new Set();
const unique = found.filter(({ value }) => !seen.has(value) && seen.add(value));
process.stdout.write(JSON.stringify(unique.map(({ value, ...rest }) => rest)));
`;

async function exportedErrorClasses(): Promise<ExportedErrorClass[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--input-type=module", "--eval", LIST_ERROR_CLASSES, JSON.stringify(entryPoints)],
    { cwd: fileURLToPath(new URL("..", import.meta.url)), maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as ExportedErrorClass[];
}

describe("error markers", () => {
  it("every exported error class of every package has a marker of its own, explicit and unique", async () => {
    const owners = new Map<string, string>();
    for (const { entry, name, ownMarker, marker } of await exportedErrorClasses()) {
      const where = `${name} from ${entry}`;
      expect(ownMarker, `${where} declares no marker of its own`).toBe(true);
      expect(marker, where).toMatch(/^skein\.[a-z][a-z0-9-]*\.[A-Z][A-Za-z0-9]*Error$/);
      // The marker's last segment is the error's \`name\`: it must say the class's own name.
      expect(marker?.slice(marker.lastIndexOf(".") + 1), where).toBe(name);
      expect(
        owners.get(marker as string),
        `${where} repeats the marker of ${owners.get(marker as string)}`,
      ).toBeUndefined();
      owners.set(marker as string, where);
    }
    // thread-core's own classes and those of every adapter: a count far below means the barrels were not found.
    expect(owners.size).toBeGreaterThan(60);
  });
});
