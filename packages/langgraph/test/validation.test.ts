// LangGraph's own checkpointer conformance suite, run through its library entry (its CLI is broken in 1.1.1),
// once per store. The saver's name is not one the suite exempts, so every case runs, including "should
// only store channel_values that have changed".
import { validate } from "@langchain/langgraph-checkpoint-validation";
import { freshStore, STORE_KINDS, type TestStore } from "@skein/test-support/fresh-store";
import { SkeinCheckpointSaver } from "../src/index.js";

for (const kind of STORE_KINDS) {
  const stores = new Map<SkeinCheckpointSaver, TestStore>();
  validate({
    checkpointerName: `SkeinCheckpointSaver on ${kind}`,
    async createCheckpointer() {
      const store = await freshStore(kind);
      const saver = new SkeinCheckpointSaver({ store: store.store });
      stores.set(saver, store);
      return saver;
    },
    async destroyCheckpointer(saver) {
      await stores.get(saver)?.dispose();
      stores.delete(saver);
    },
  });
}
