import { requireBuilt } from "@skein/test-support/global-setup";
import { ensureChromium } from "./chromium.js";

const BUNDLE = new URL("../dist/client/app.js", import.meta.url);
const CLI = new URL("../../cli/dist/bin.js", import.meta.url);

/** The page must be built (the server serves dist/client), the CLI too (a test appends through it), and chromium present. */
export default function setup(): void {
  requireBuilt([BUNDLE, CLI]);
  ensureChromium((line) => console.log(`[ui tests] ${line}`));
}
