export { type ConformanceOptions, runConformanceSuite } from "./conformance.js";
export { type LogDriverSuiteOptions, runLogDriverSuite } from "./log-driver-suite.js";
