import { describe, it } from "vitest";
import { runLogDriverSuite } from "../testing/log-driver-suite.js";
import { MemoryLogDriver } from "./memory-log-driver.js";

runLogDriverSuite({ name: "memory", createDriver: () => new MemoryLogDriver(), describe, it });
