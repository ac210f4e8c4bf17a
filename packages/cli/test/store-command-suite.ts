import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { skein, skeinOk } from "./run-skein.js";

const directories: string[] = [];

/** A file store in a new temporary directory, removed after the suite. */
export function temporaryStore(): string {
  const directory = mkdtempSync(join(tmpdir(), "skein-cli-"));
  directories.push(directory);
  return `file:${directory}`;
}

export interface Backend {
  name: string;
  /** The type of the threads the store creates. */
  type: string;
  /** A new store's URL: a fresh one for file stores, the shared server for Redis. */
  url: () => string;
  /** Set for shared servers: the run works in this scope so it neither reads nor disturbs other data. */
  scope?: string;
}

/** Every command, on one kind of store, as a user runs them one after another. */
export function storeCommandSuite(backend: Backend) {
  describe(`commands on a ${backend.name} store`, () => storeCommandCases(backend));
}

function storeCommandCases(backend: Backend) {
  afterAll(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });
  const url = backend.url();
  const scoped = (args: string[]) => [...args, ...(backend.scope ? ["--scope", backend.scope] : [])];
  const ok = (args: string[], input?: string) => skeinOk(scoped(args), { store: url, input });
  const fails = (args: string[], input?: string) => skein(scoped(args), { store: url, input });
  const json = async (args: string[], input?: string) => JSON.parse(await ok([...args, "--json"], input));
  let checkpoint = "";

  afterAll(async () => {
    if (backend.scope)
      await skein(scoped(["delete", "--missing-ok", "support-42", "support-42-fork", "support-42-copy"]), {
        store: url,
      });
  });

  it("creates a thread of the store's own type, and refuses the same id twice (exit 4)", async () => {
    const created = await json(["create", "--id", "support-42", "--metadata", '{"user":"u-7"}']);
    expect(created).toEqual({ id: "support-42", type: backend.type, revision: 0 });
    const again = await fails(["create", "--id", "support-42"]);
    expect(again.code).toBe(4);
    expect(again.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("appends text, and JSON messages from stdin", async () => {
    expect(await ok(["append", "support-42", "--text", "Is it warm in Lisbon today?"])).toMatch(
      /^appended 1 message to support-42: 1 message, revision 1$/m,
    );
    const messages = [
      {
        role: "assistant",
        contents: [
          { type: "function_call", callId: "call_1", name: "weather", arguments: { city: "Lisbon" } },
        ],
      },
      { role: "tool", contents: [{ type: "function_result", callId: "call_1", result: { celsius: 24 } }] },
      { id: "answer-1", role: "assistant", contents: [{ type: "text", text: "Yes: 24°C and clear." }] },
    ];
    const stored = await json(["append", "support-42"], JSON.stringify(messages));
    expect(stored.map((message: { role: string }) => message.role)).toEqual([
      "assistant",
      "tool",
      "assistant",
    ]);
    // Re-sending an equal message is a no-op; the same id with other content is a conflict.
    await ok(["append", "support-42"], JSON.stringify(messages[2]));
    const conflict = await fails(
      ["append", "support-42"],
      JSON.stringify({ ...messages[2], contents: [{ type: "text", text: "No." }] }),
    );
    expect(conflict.code).toBe(4);
    const moved = await fails(["append", "support-42", "--text", "late", "--if-revision", "0"]);
    expect(moved.code).toBe(4);
  });

  it("checkpoints, forks and rolls back", async () => {
    const made = await json(["checkpoint", "support-42", "answered"]);
    expect(made).toMatchObject({ label: "answered", threadId: "support-42", point: { position: 4 } });
    checkpoint = made.id;
    await ok(["append", "support-42", "--text", "Book me a table by the river."]);
    const fork = await json(["fork", "support-42", "--id", "support-42-fork"]);
    expect(fork).toEqual({ id: "support-42-fork", type: backend.type, parentId: "support-42", length: 5 });
    await ok([
      "append",
      "support-42-fork",
      "--role",
      "assistant",
      "--text",
      "Booked: 20:00 at Cais do Sodré.",
    ]);
    const rolled = await json(["rollback", "support-42", checkpoint]);
    expect(rolled).toMatchObject({ id: "support-42", before: 5, length: 4 });
    const unknown = await fails(["rollback", "support-42", "cp_nothing"]);
    expect(unknown.code).toBe(3);
  });

  it("shows a transcript, the last messages, and the past at a checkpoint", async () => {
    const transcript = await ok(["show", "support-42"]);
    expect(transcript).toMatch(
      new RegExp(`^thread support-42 \\(${backend.type}\\) · 4 messages · revision \\d+`),
    );
    expect(transcript).toContain('metadata {"user":"u-7"}');
    expect(transcript).toMatch(/#2 assistant +\S+\n +→ weather\(\{"city":"Lisbon"\}\)/);
    expect(transcript).toMatch(/#4 assistant +answer-1\n +Yes: 24°C and clear\./);
    const shown = await json(["show", "support-42"]);
    expect(shown).toMatchObject({
      id: "support-42",
      type: backend.type,
      length: 4,
      metadata: { user: "u-7" },
    });
    expect(shown.messages).toHaveLength(4);
    expect(
      (await json(["show", "support-42-fork", "--last", "2"])).messages.map(
        (message: { role: string }) => message.role,
      ),
    ).toEqual(["user", "assistant"]);
    expect((await json(["show", "support-42", "--at", "answer-1"])).messages).toHaveLength(4);
  });

  it("draws the log: HEAD, the checkpoint, the abandoned message and the fork", async () => {
    const log = await ok(["log", "support-42", "--forks"]);
    expect(log).toContain("* #6 (fork support-42-fork) assistant: Booked: 20:00 at Cais do Sodré.");
    expect(log).toMatch(/\* #5 \(r\d+: abandoned\) user: Book me a table by the river\./);
    expect(log).toMatch(
      new RegExp(
        `\\* #4 \\(HEAD, ${checkpoint} "answered", r\\d+: rolled back here from #5\\) assistant: Yes`,
      ),
    );
    expect(log.trimEnd().split("\n").at(-1)).toBe("* #0 (start)");
    const graph = await json(["log", "support-42"]);
    expect(graph.length).toBe(4);
    expect(graph.nodes.find((node: { head: boolean }) => node.head)).toMatchObject({
      position: 4,
      messageId: "answer-1",
    });
    const forkLog = await ok(["log", "support-42-fork"]);
    expect(forkLog).toContain("(forked from support-42)");
  });

  it("gives a view that fits the budget and keeps the tool call whole", async () => {
    const view = await json(["view", "support-42", "--max-tokens", "30"]);
    expect(view.messages.at(-1).id).toBe("answer-1");
    expect(view.messages[0].contents[0].type).not.toBe("function_result");
    expect(view.tokens).toBeLessThanOrEqual(30);
    expect(await ok(["view", "support-42", "--max-messages", "1"])).toMatch(
      /^view of support-42: 1 of 4 messages/,
    );
  });

  it("lists in pages, by prefix and by type", async () => {
    const first = await json(["ls", "--limit", "1"]);
    expect(first.items.map((item: { id: string }) => item.id)).toEqual(["support-42"]);
    const second = await json(["ls", "--limit", "1", "--cursor", first.cursor]);
    expect(second.items.map((item: { id: string }) => item.id)).toEqual(["support-42-fork"]);
    expect(second.cursor).toBeUndefined();
    expect((await json(["ls", "--prefix", "support-42-"])).items).toHaveLength(1);
    expect((await json(["ls", "--type", "workflow"])).items).toHaveLength(0);
    // More than a store pages at once is asked for in several pages.
    expect((await json(["ls", "--limit", "5000"])).items).toHaveLength(2);
    expect(await ok(["ls"])).toMatch(/^ID +TYPE +UPDATED\nsupport-42 +\w+ +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n/);
  });

  it("exports with the whole history and imports it back, in this store and a fresh one", async () => {
    const exported = await ok(["export", "support-42", "support-42-fork"]);
    const lines = exported.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    const state = JSON.parse(lines[0] as string);
    expect(state).toMatchObject({ $type: "memory", id: "support-42" });
    expect(state.events.map((event: { kind: string }) => event.kind)).toEqual(["checkpoint", "rollback"]);

    const copy = await json(["import", "-", "--id", "support-42-copy"], lines[0]);
    expect(copy).toEqual([{ id: "support-42-copy", type: backend.type }]);
    expect((await json(["show", "support-42-copy"])).messages).toEqual(
      (await json(["show", "support-42"])).messages,
    );
    const taken = await fails(["import", "-"], lines[0]);
    expect(taken.code).toBe(4);

    const fresh = backend.scope ? url : temporaryStore();
    const freshScope = backend.scope ? ["--scope", `${backend.scope}-fresh`] : [];
    await skeinOk(["import", "-", ...freshScope], { store: fresh, input: exported });
    expect(await skeinOk(["export", "--all", ...freshScope], { store: fresh })).toBe(exported);
    expect(await skeinOk(["log", "support-42", ...freshScope], { store: fresh })).toBe(
      await ok(["log", "support-42"]),
    );
    await skeinOk(["delete", "support-42", "support-42-fork", ...freshScope], { store: fresh });
  });

  it("deletes, and an unknown id is then exit 3", async () => {
    expect(await ok(["delete", "support-42-copy"])).toBe("deleted 1 thread: support-42-copy\n");
    const gone = await fails(["show", "support-42-copy"]);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/^skein: .*"support-42-copy" was not found/);
  });
}
