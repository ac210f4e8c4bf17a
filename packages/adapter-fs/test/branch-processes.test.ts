import { join } from "node:path";
import { temporaryDirectory } from "@skein/test-support/temporary-directory";
import type { LogThread } from "@skein/thread-core";
import { describe, expect, it } from "vitest";
import { fsStore } from "../src/index.js";
import { collectOutput, exited, printed, startChild } from "./child-process.js";

const EDITS = 20;

describe("two processes editing one message", () => {
  it(`land ${EDITS} versions each, every one listed once with its branch, one current`, async () => {
    const directory = join(await temporaryDirectory(), "store");
    const store = fsStore({ directory });
    const thread = (await store.create({ id: "chat" })) as LogThread;
    await thread.append([
      { id: "u1", role: "user", text: "hello" },
      { id: "a1", role: "assistant", text: "hi" },
      { id: "u2", role: "user", text: "book a table" },
      { id: "a2", role: "assistant", text: "for how many?" },
    ]);
    const editors = ["p", "q"].map((writer) =>
      startChild("branch-editor.ts", [directory, "chat", "u2", writer, String(EDITS)]),
    );
    const outputs = editors.map((editor) => collectOutput(editor));
    await Promise.all(outputs.map((output) => printed(output, "ready")));
    for (const editor of editors) editor.stdin?.write("go\n");
    expect(await Promise.all(editors.map((editor) => exited(editor)))).toEqual([0, 0]);

    const versions = await thread.alternatives("u2");
    const written = outputs.flatMap((output) => output.stdout().trim().split("\n").slice(1));
    expect(written).toHaveLength(2 * EDITS);
    expect(versions.map((version) => version.id).sort()).toEqual(["u2", ...written].sort());
    expect(versions[0]?.id).toBe("u2");
    const current = versions.filter((version) => version.current);
    expect(current).toHaveLength(1);
    expect((await thread.messages()).map((message) => message.id)).toEqual(["u1", "a1", current[0]?.id]);
    for (const version of versions) {
      const branch = (await (await thread.at(version.end)).messages()).map((message) => message.id);
      expect(branch).toEqual(version.id === "u2" ? ["u1", "a1", "u2", "a2"] : ["u1", "a1", version.id]);
    }
    // Each edit and switch is one revision: nothing was applied twice or lost.
    const switches = (await thread.history()).filter((event) => event.kind === "rollback");
    expect(switches).toHaveLength(2 * EDITS + 2 * (EDITS / 5));
    await store.close();
  }, 180_000);
});
