// `NODE_OPTIONS="--import <this file>"`: processes the tests start (test/children/*) load the current majors too,
// not only the modules vitest itself resolves through vitest-current.mjs.
import { register } from "node:module";

register(new URL("./hooks.mjs", import.meta.url));
