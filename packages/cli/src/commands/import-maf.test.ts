import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { mafFixtureJson, mafFixturePath, mafFixtureText } from "@skein/test-support/maf-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/run-cli.js";

const directory = mkdtempSync(join(tmpdir(), "skein-cli-maf-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Runs one `skein` command line in this process against a store of its own; its exit code and output. */
async function skein(
  store: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const streams = { stdout: new PassThrough(), stderr: new PassThrough() };
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  streams.stdout.on("data", (chunk: Buffer) => chunks.stdout.push(chunk));
  streams.stderr.on("data", (chunk: Buffer) => chunks.stderr.push(chunk));
  const code = await runCli(["--store", `file:${join(directory, store)}`, ...args], {
    ...streams,
    stdin: Readable.from([]),
    environment: {},
  });
  return {
    code,
    stdout: Buffer.concat(chunks.stdout).toString("utf8"),
    stderr: Buffer.concat(chunks.stderr).toString("utf8"),
  };
}

describe("skein import --from maf / export --to maf-…", () => {
  it("a MAF Python session comes in as a local thread and goes out as MAF's document", async () => {
    const imported = await skein("python", [
      "import",
      "--from",
      "maf",
      mafFixturePath("python/a_session_in_memory.to_dict.json"),
    ]);
    expect(imported).toMatchObject({
      code: 0,
      stdout: "imported 1 thread from MAF as fs: sess_a_in_memory\n",
    });
    const exported = await skein("python", ["export", "--to", "maf-python", "sess_a_in_memory"]);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toEqual(mafFixtureJson("python/a_session_in_memory.to_dict.json"));
  });

  it("a FileSessionStore file goes out byte for byte", async () => {
    const file = "python/file_session_store/sess_a2_mixed_state.json";
    expect((await skein("store-file", ["import", "--from", "maf", mafFixturePath(file)])).code).toBe(0);
    const exported = await skein("store-file", ["export", "--to", "maf-python", "sess_a2_mixed_state"]);
    expect(exported.stdout).toBe(`${mafFixtureText(file)}\n`);
  });

  it("a history .jsonl is named by its file; a .NET session goes out for .NET", async () => {
    const history = "python/file_history/~session-dXNlci80Mjp3ZWlyZCBpZA.jsonl";
    const imported = await skein("history", ["import", "--from", "maf", mafFixturePath(history)]);
    expect(imported.stdout).toBe("imported 1 thread from MAF as fs: user/42:weird id\n");
    const dotnet = await skein("history", ["export", "--to", "maf-dotnet", "user/42:weird id"]);
    const session = JSON.parse(dotnet.stdout) as {
      stateBag: { InMemoryChatHistoryProvider: { messages: unknown[] } };
    };
    expect(session.stateBag.InMemoryChatHistoryProvider.messages).toHaveLength(1);
  });

  it("a service session: saved as the adapter's remote state (its type registered with --types), exported back", async () => {
    const file = "python/b_session_service_id.to_dict.json";
    const types = ["--types", "@skein/adapter-openai"];
    const imported = await skein("service", [...types, "import", "--from", "maf", mafFixturePath(file)]);
    expect(imported).toMatchObject({
      code: 0,
      stdout: "imported 1 thread from MAF as openai.responses: sess_b_service\n",
    });
    const exported = await skein("service", [...types, "export", "--to", "maf-python", "sess_b_service"]);
    expect(JSON.parse(exported.stdout)).toEqual(mafFixtureJson(file));
  });

  it("a document MAF refuses: exit 5 with the JSON path, and no thread and no store written", async () => {
    const file = mafFixturePath("python/invalid/session_message_unknown_key.json");
    const refused = await skein("refused", ["import", "--from", "maf", file]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain("$.state.in_memory.messages[0].foo");
    expect(readdirSync(directory)).not.toContain("refused");
  });

  it("a msgpack file is refused: convert it with MAF to JSON", async () => {
    const file = mafFixturePath("python/file_session_store_msgpack/sess_a_in_memory.msgpack");
    const refused = await skein("msgpack", ["import", "--from", "maf", file]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("msgpack is not supported, convert with MAF to JSON");
  });

  it("--from and --to take only what they know", async () => {
    expect((await skein("usage", ["import", "--from", "langchain", "x.json"])).code).toBe(2);
    expect((await skein("python", ["export", "--to", "maf-java", "sess_a_in_memory"])).code).toBe(2);
  });
});
