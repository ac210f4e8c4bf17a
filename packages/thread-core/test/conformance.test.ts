import { openStore } from "@skein/thread-core";
import { runConformanceSuite } from "@skein/thread-core/testing";

runConformanceSuite({ name: "memory", createStore: () => openStore("memory:") });
