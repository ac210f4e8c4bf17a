import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { skein, skeinOk } from "./run-skein.js";

/** Control characters a terminal acts on; line feeds and tabs are the layout of the output itself. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const TITLE = "\u001b]0;pwned\u0007"; // OSC 0: sets the window title
const LINK = "\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007"; // OSC 8: a hyperlink
const CLEAR = "\u001b[2J\u009b2J"; // CSI, then its one-character C1 form
const THREAD = "rtl\u202egnp.exe"; // a valid thread id: U+202E is a format character, not a control
const MESSAGE = `m-${LINK}`;
const LABEL = `done${CLEAR}\n* #9 (HEAD) forged line`;
const TEXT = `hi ${TITLE}there\r\nsecond line${CLEAR}\u007f`;

/** A thread holding escapes in every field a human-readable output shows, as `skein export` writes it. */
function hostileExport(): string {
  const at = "2026-11-21T22:39:36.000Z";
  return JSON.stringify({
    $type: "memory",
    $v: 1,
    id: THREAD,
    createdAt: at,
    updatedAt: at,
    metadata: { title: TITLE, c1: "\u009b31m" },
    context: {},
    revision: 2,
    end: { segment: "s1", offset: 2 },
    segments: [
      {
        id: "s1",
        base: null,
        start: 0,
        createdAt: at,
        messages: [
          {
            id: MESSAGE,
            role: "user",
            authorName: TITLE,
            createdAt: at,
            contents: [{ type: "text", text: TEXT }],
          },
          {
            id: "m-2",
            role: "assistant",
            createdAt: at,
            contents: [{ type: "function_call", callId: "c1", name: `look${CLEAR}`, arguments: { q: LINK } }],
          },
        ],
      },
    ],
    events: [
      {
        kind: "checkpoint",
        checkpoint: {
          id: "cp_1",
          label: LABEL,
          threadId: THREAD,
          point: { segment: "s1", offset: 1, position: 1 },
          createdAt: at,
        },
        at,
        revision: 2,
      },
    ],
  });
}

/** Output for people: no raw control character, whatever the store holds. */
function expectVisible(output: string, where: string): void {
  expect(output, where).not.toMatch(RAW_CONTROL);
  expect(output.length, where).toBeGreaterThan(0);
}

describe("terminal escapes in stored data", () => {
  const directory = mkdtempSync(join(tmpdir(), "skein-cli-escapes-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const store = { store: `file:${directory}/store` };
  const file = join(directory, "hostile.json");
  writeFileSync(file, hostileExport());

  it("import, ls, show, log and view print escapes visibly; --json keeps them exact", async () => {
    const imported = await skeinOk(["import", file], store);
    expectVisible(imported, "import");
    expect(imported).toContain("rtl\\u202egnp.exe");

    const listed = await skeinOk(["ls"], store);
    expectVisible(listed, "ls");
    expect(listed).toContain("rtl\\u202egnp.exe");
    expect(JSON.parse(await skeinOk(["ls", "--json"], store)).items[0].id).toBe(THREAD);

    const shown = await skeinOk(["show", THREAD], store);
    expectVisible(shown, "show");
    expect(shown).toContain('"title":"\\u001b]0;pwned\\u0007"');
    expect(shown).toContain(
      "#1 user (\\u001b]0;pwned\\u0007)  m-\\u001b]8;;https://evil.example\\u0007click",
    );
    expect(shown).toContain("hi \\u001b]0;pwned\\u0007there\n");
    expect(shown).toContain("second line\\u001b[2J\\u009b2J\\u007f\n");
    expect(shown).toContain("→ look\\u001b[2J\\u009b2J(");
    const json = JSON.parse(await skeinOk(["show", THREAD, "--json"], store));
    expect(json.metadata).toEqual({ title: TITLE, c1: "\u009b31m" });
    expect(json.messages[0]).toMatchObject({ id: MESSAGE, authorName: TITLE });
    expect(json.messages[0].contents[0].text).toBe(TEXT);

    const log = await skeinOk(["log", THREAD], store);
    expectVisible(log, "log");
    // The label's line feed stays on its line: no forged graph row.
    expect(log.split("\n").filter((line) => line.startsWith("* #"))).toHaveLength(3);
    expect(log).toContain('cp_1 "done\\u001b[2J\\u009b2J\\u000a* #9 (HEAD) forged line"');
    const logJson = JSON.parse(await skeinOk(["log", THREAD, "--json"], store));
    expect(logJson.events[0].checkpoint.label).toBe(LABEL);
    expect(logJson.nodes.map((node: { messageId: string | null }) => node.messageId)).toContain(MESSAGE);

    const view = await skeinOk(["view", THREAD, "--max-tokens", "1000"], store);
    expectVisible(view, "view");
    expect(view).toContain("m-\\u001b]8;;https://evil.example");
  });

  it("export is exact; checkpoint, fork and rollback echo visibly", async () => {
    // Exported before the checkpoint: thread-core's export of an imported thread fails once an event points at
    // its new, still empty head segment (a TypeError, reported separately).
    const exported = JSON.parse(await skeinOk(["export", THREAD], store));
    expect(exported.metadata.title).toBe(TITLE);
    expect(exported.segments[0].messages[0].contents[0].text).toBe(TEXT);
    const checkpoint = await skeinOk(["checkpoint", THREAD, LABEL], store);
    expectVisible(checkpoint, "checkpoint");
    expect(checkpoint.split("\n")).toHaveLength(2);
    const fork = await skeinOk(["fork", THREAD, "--at", MESSAGE, "--id", "fork-1"], store);
    expectVisible(fork, "fork");
    expect(fork).toContain("(m-\\u001b]8;;https://evil.example");
    const rollback = await skeinOk(["rollback", THREAD, MESSAGE], store);
    expectVisible(rollback, "rollback");
    expect(rollback).toContain("back to m-\\u001b]8;;https://evil.example");
  });

  it("error lines show what they quote visibly", async () => {
    const missing = await skein(["show", THREAD, "--at", `nowhere${TITLE}\u009b2J`], store);
    expect(missing.code).toBe(3);
    expectVisible(missing.stderr, "show --at");
    expect(missing.stderr).toContain("\\u009b2J");
    const deleted = await skein(["delete", "gone\u202e"], store);
    expect(deleted.code).toBe(3);
    expectVisible(deleted.stderr, "delete");
    expect(deleted.stderr).toContain('no thread "gone\\u202e"');
  });
});
