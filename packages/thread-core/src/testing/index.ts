export { runConformanceSuite, type ConformanceOptions } from "./conformance.js";
