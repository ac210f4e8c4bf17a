import { describe, expect, inject, it } from "vitest";
import { ALL_COMMANDS } from "../src/commands/all-commands.js";
import { skein, skeinOk } from "./run-skein.js";

const memory = { store: "memory:" };

/** Every failure is exactly one line on stderr, starting with `skein:`. */
function expectOneErrorLine(stderr: string): string {
  const lines = stderr.split("\n").filter((line) => line !== "");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^skein: /);
  return lines[0] as string;
}

describe("help and usage", () => {
  it("--help lists every command and the exit codes", async () => {
    const help = await skeinOk(["--help"]);
    for (const command of ALL_COMMANDS) expect(help).toContain(`  ${command.name} `);
    expect(help).toMatch(/Exit codes:[\s\S]*0 +success[\s\S]*2 +usage[\s\S]*3 +not found[\s\S]*4 +conflict/);
  });

  it("every command has --help, and `skein help <command>` says the same", async () => {
    const helps = await Promise.all(ALL_COMMANDS.map((command) => skeinOk([command.name, "--help"])));
    helps.forEach((help, index) => {
      expect(help).toContain(`Usage: skein ${ALL_COMMANDS[index]?.usage}`);
    });
    expect(await skeinOk(["help", "migrate"])).toBe(await skeinOk(["migrate", "--help"]));
  });

  it("an unknown command is a usage error (exit 2), one line", async () => {
    const result = await skein(["frobnicate"], memory);
    expect(result.code).toBe(2);
    expect(expectOneErrorLine(result.stderr)).toBe('skein: unknown command "frobnicate" (see skein --help)');
  });

  it("an unknown flag, a missing value and a missing argument are usage errors", async () => {
    const unknown = await skein(["ls", "--frob"], memory);
    expect(unknown.code).toBe(2);
    expect(expectOneErrorLine(unknown.stderr)).toContain("unknown flag --frob");
    const missingValue = await skein(["ls", "--limit"], memory);
    expect(missingValue.code).toBe(2);
    expect(expectOneErrorLine(missingValue.stderr)).toContain("--limit needs a value");
    const missingId = await skein(["show"], memory);
    expect(missingId.code).toBe(2);
    expect(expectOneErrorLine(missingId.stderr)).toBe("skein: missing <id> (see skein show --help)");
  });

  it("bare `skein` prints the help and exits 2", async () => {
    const result = await skein([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("Usage: skein <command>");
  });
});

describe("store URLs", () => {
  it("a bad URL is exit 6, one line", async () => {
    const result = await skein(["ls", "--store", "not a url"]);
    expect(result.code).toBe(6);
    expect(expectOneErrorLine(result.stderr)).toContain('Invalid store URL "not a url"');
  });

  it("an unknown scheme names the ones there are, and never prints the password", async () => {
    const result = await skein(["ls", "--store", "ftp://admin:hunter2@example.com/x"]);
    expect(result.code).toBe(6);
    const line = expectOneErrorLine(result.stderr);
    expect(line).toContain("use memory:, file:, redis:, rediss:, postgres:, postgresql:");
    expect(line).not.toContain("hunter2");
  });

  it("an unreachable Redis is exit 6, and the password in its URL is not printed", async () => {
    // Port 1 refuses connections; timeout= (ms) is adapter-redis's URL parameter, so the test need not wait 5 s.
    const result = await skein(["ls", "--store", "redis://admin:hunter2@127.0.0.1:1?timeout=300"]);
    expect(result.code).toBe(6);
    expect(expectOneErrorLine(result.stderr)).not.toContain("hunter2");
    expect(result.stdout).not.toContain("hunter2");
  });

  it("SKEIN_STORE is used when --store is not given, and --store wins over it", async () => {
    expect(JSON.parse(await skeinOk(["create", "--json"], memory)).type).toBe("memory");
    const result = await skein(["create", "--store", "nope"], memory);
    expect(result.code).toBe(6);
  });

  it("the redis URL from the test setup answers", async () => {
    const page = JSON.parse(
      await skeinOk(["ls", "--json", "--limit", "1", "--scope", "nobody-here"], {
        store: inject("redisUrl"),
      }),
    );
    expect(page).toEqual({ items: [] });
  });
});

describe("single-command flows on memory:", () => {
  it("demo runs the scripted conversation", async () => {
    const output = await skeinOk(["demo"], memory);
    expect(output).toMatch(/^store +memory:/m);
    expect(output).toContain('"answered" at message 5');
    expect(output).toContain('assistant → weather({"city":"Lisbon"})');
    expect(output).toContain('tool      ← {"celsius":24,"sky":"clear"}');
    expect(output).toMatch(/reopened +\S+: 5 messages, revision 4/);
    expect(output).toContain('fork         7 messages, last: "Booked: 20:00 at Cais do Sodré."');
    expect(output).toMatch(/\* #5 \(HEAD, cp_\S+ "answered", r4: rolled back here from #6\)/);
  });

  it("schema describes every registered type, fs and redis included", async () => {
    const schema = JSON.parse(await skeinOk(["schema"], memory));
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(Object.keys(schema.$defs)).toEqual(expect.arrayContaining(["memory", "workflow", "fs", "redis"]));
    const fs = JSON.parse(await skeinOk(["schema", "--type", "fs"], memory));
    expect(fs.properties.$type).toBeDefined();
    const unknown = await skein(["schema", "--type", "acme.nothing"], memory);
    expect(unknown.code).toBe(3);
    expectOneErrorLine(unknown.stderr);
  });

  it("an unknown id is exit 3, one line", async () => {
    const result = await skein(["show", "no-such-thread"], memory);
    expect(result.code).toBe(3);
    expect(expectOneErrorLine(result.stderr)).toContain('Thread "no-such-thread" was not found');
  });

  it("invalid JSON on import names its line and column (exit 5)", async () => {
    const pretty = await skein(["import", "-"], {
      ...memory,
      input: '{\n  "$type": "memory",\n  "id" "x"\n}\n',
    });
    expect(pretty.code).toBe(5);
    expect(expectOneErrorLine(pretty.stderr)).toBe(
      "skein: stdin is not valid JSON: line 3, column 8: expected ':' after a property name, found '\"'",
    );
    const lines = await skein(["import", "-"], {
      ...memory,
      input: '{"$type":"memory"}\n{"$type":"memory"}\n{"$type": memory}\n',
    });
    expect(lines.code).toBe(5);
    expect(expectOneErrorLine(lines.stderr)).toBe(
      "skein: stdin is not valid JSON: line 3, column 11: expected a value, found 'm'",
    );
  });

  it("a valid JSON document that is not a thread is exit 5, naming what is wrong", async () => {
    const result = await skein(["import", "-"], { ...memory, input: '{"$type":"memory","id":"x"}' });
    expect(result.code).toBe(5);
    expect(expectOneErrorLine(result.stderr)).toMatch(/^skein: stdin: .*Invalid thread state/);
  });

  it("a missing input file is exit 3", async () => {
    const result = await skein(["import", "/nonexistent/threads.jsonl"], memory);
    expect(result.code).toBe(3);
    expect(expectOneErrorLine(result.stderr)).toBe("skein: no such file: /nonexistent/threads.jsonl");
  });

  it("create --json gives the new thread; ls --json an empty page", async () => {
    const created = JSON.parse(
      await skeinOk(["create", "--id", "a", "--metadata", '{"user":"u-7"}', "--json"], memory),
    );
    expect(created).toEqual({ id: "a", type: "memory", revision: 0 });
    expect(JSON.parse(await skeinOk(["ls", "--json"], memory))).toEqual({ items: [] });
  });

  it("malformed flag values are usage errors that say why", async () => {
    const metadata = await skein(["create", "--metadata", '{"a":}'], memory);
    expect(metadata.code).toBe(2);
    expect(expectOneErrorLine(metadata.stderr)).toContain("--metadata is not valid JSON: line 1, column 6");
    const limit = await skein(["ls", "--limit", "0"], memory);
    expect(limit.code).toBe(2);
    const cursor = await skein(["ls", "--cursor", "not-a-cursor"], memory);
    expect(cursor.code).toBe(2);
  });
});
