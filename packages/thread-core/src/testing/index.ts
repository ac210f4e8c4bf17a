export { ERASURE_MARKER, markedThread } from "./cases/erasure-cases.js";
export { type ConformanceOptions, runConformanceSuite } from "./conformance.js";
export { type LogDriverSuiteOptions, runLogDriverSuite } from "./log-driver-suite.js";
export { type RekeySuiteOptions, runRekeySuite } from "./rekey-suite.js";
export type { SuiteOptions, TestFunction } from "./test-runner.js";
