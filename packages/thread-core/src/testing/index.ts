export { type ConformanceOptions, runConformanceSuite } from "./conformance.js";
export { type LogDriverSuiteOptions, runLogDriverSuite } from "./log-driver-suite.js";
export { type RekeySuiteOptions, runRekeySuite } from "./rekey-suite.js";
export type { SuiteOptions, TestFunction } from "./test-runner.js";
