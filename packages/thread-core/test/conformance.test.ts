import { openStore } from "@skein/thread-core";
import { runConformanceSuite } from "@skein/thread-core/testing";
import { describe, it } from "vitest";

runConformanceSuite({ name: "memory", createStore: () => openStore("memory:"), describe, it });
