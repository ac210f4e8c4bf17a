import { storeCommandSuite, temporaryStore } from "./store-command-suite.js";

storeCommandSuite({ name: "file", type: "fs", url: temporaryStore });
