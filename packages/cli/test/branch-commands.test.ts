import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { skein, skeinOk } from "./run-skein.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-branches-"));
const store = `file:${directory}`;
const ok = (args: string[], input?: string) => skeinOk(args, { store, input });
const json = async (args: string[], input?: string) => JSON.parse(await ok([...args, "--json"], input));
const messageIds = async () =>
  (await json(["show", "chat"])).messages.map((message: { id: string }) => message.id);

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("skein edit, alternatives, switch and log on a file store", () => {
  it("edits a message into a new version, lists both, switches back and forth, and draws the branch", async () => {
    await ok(["create", "--id", "chat"]);
    const messages = [
      { id: "u1", role: "user", text: "Table for two tonight?" },
      { id: "a1", role: "assistant", text: "At 20:00?" },
      { id: "u2", role: "user", text: "Yes, by the window" },
      { id: "a2", role: "assistant", text: "Booked." },
    ];
    await ok(["append", "chat"], JSON.stringify(messages));

    const edited = await ok(["edit", "chat", "u2", "--text", "Make it 21:00", "--new-id", "u2b"]);
    expect(edited).toBe(
      "edited chat: u2 replaced by u2b, version 2 of 2; the old branch stays (`skein alternatives chat u2b`)\n",
    );
    expect(await messageIds()).toEqual(["u1", "a1", "u2b"]);
    // The old version's role is kept, and a retry with the same new id changes nothing.
    const retried = await json(["edit", "chat", "u2", "--text", "Make it 21:00", "--new-id", "u2b"]);
    expect(retried).toMatchObject({ replaced: "u2", message: { id: "u2b", role: "user" }, versions: 2 });

    const listed = await ok(["alternatives", "chat", "u2b"]);
    expect(listed.split("\n")).toEqual([
      "   1/2  u2   4 messages  user: Yes, by the window",
      "*  2/2  u2b  3 messages  user: Make it 21:00",
      "",
    ]);
    const versions = await json(["alternatives", "chat", "u2"]);
    expect(
      versions.map((version: { id: string; current: boolean }) => [version.id, version.current]),
    ).toEqual([
      ["u2", false],
      ["u2b", true],
    ]);

    const revision = (await json(["show", "chat"])).revision as number;
    const stale = await skein(["switch", "chat", "u2", "--if-revision", String(revision - 1)], { store });
    expect(stale.code).toBe(4);
    expect(await ok(["switch", "chat", "u2", "--if-revision", String(revision)])).toBe(
      "switched chat to u2, version 1 of 2: 4 messages\n",
    );
    expect(await messageIds()).toEqual(["u1", "a1", "u2", "a2"]);
    expect(await json(["switch", "chat", "u2b"])).toMatchObject({
      version: "u2b",
      index: 1,
      versions: 2,
      length: 3,
    });

    const log = await ok(["log", "chat"]);
    expect(log).toContain("version u2 of #3 (edited)");
    expect(log).toContain("#3 edited to u2b here");
    expect(log).toContain("version u2b of #3 (switched)");
  });

  it("says what went wrong: an unknown message exits 3, a message further along another branch exits 4 and names switch", async () => {
    const unknown = await skein(["edit", "chat", "nope", "--text", "x"], { store });
    expect(unknown.code).toBe(3);
    // a2 answers the old version of u2, a branch that is not current (u2b is): the thread's state refuses it.
    const before = await ok(["show", "chat", "--json"]);
    const offBranch = await skein(["edit", "chat", "a2", "--text", "x"], { store });
    expect(offBranch.code).toBe(4);
    expect(offBranch.stderr).toMatch(/^skein: .*a2.* is not on the current branch; nothing was written\./);
    expect(offBranch.stderr).toContain("switchTo");
    expect(await ok(["show", "chat", "--json"])).toBe(before);
    const elsewhere = await skein(["alternatives", "chat", "a2"], { store });
    expect(elsewhere.code).toBe(4);
    expect(elsewhere.stderr).toContain("switchTo");
    const noText = await skein(["edit", "chat", "u2b"], { store });
    expect(noText.code).toBe(2);
  });
});
