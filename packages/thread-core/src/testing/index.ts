export { type ConformanceOptions, runConformanceSuite } from "./conformance.js";
