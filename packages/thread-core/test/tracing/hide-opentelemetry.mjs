// `node --import ./hide-opentelemetry.mjs`: registers the hooks before the application's modules load.
import { register } from "node:module";

register("./hide-opentelemetry-hooks.mjs", import.meta.url);
