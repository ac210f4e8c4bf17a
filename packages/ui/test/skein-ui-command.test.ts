import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@skein/thread-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CLI = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url));

/** Starts `skein ui …`, waits for the line with its address, and gives a way to stop it. */
function startCommand(args: string[]) {
  const child = spawn("node", [CLI, "ui", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let errors = "";
  child.stderr.on("data", (chunk) => {
    errors += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const found = /skein ui on (\S+)/.exec(output);
      if (found) resolve(found[1] as string);
    });
    exited.then((code) => reject(new Error(`skein ui exited ${code}: ${errors}`)));
  });
  return { child, url, exited, errors: () => errors };
}

describe("skein ui", () => {
  let directory: string;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "skein-ui-command-"));
    const store = await openStore(`file:${directory}`);
    await (await store.create({ id: "hello" })).append({ role: "user", text: "hi" });
    await store.close();
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("serves the store on 127.0.0.1 behind the printed token, read-only, and stops on SIGTERM", async () => {
    const command = startCommand(["--store", `file:${directory}`]);
    const url = new URL(await command.url);
    expect(url.hostname).toBe("127.0.0.1");
    const token = url.searchParams.get("token") as string;
    expect(token.length).toBeGreaterThanOrEqual(43);
    const api = `http://127.0.0.1:${url.port}`;
    expect((await fetch(`${api}/api/threads`)).status).toBe(401);
    const listed = await fetch(`${api}/api/threads`, { headers: { "x-skein-token": token } });
    expect((await listed.json()).items).toEqual([expect.objectContaining({ id: "hello", messageCount: 1 })]);
    expect(await (await fetch(`${api}/api/info?token=${token}`)).json()).toMatchObject({ write: false });
    command.child.kill("SIGTERM");
    expect(await command.exited).toBe(0);
  });

  it("offers writes with --write and takes the port it is given", async () => {
    const command = startCommand(["--store", `file:${directory}`, "--write", "--port", "0"]);
    const url = new URL(await command.url);
    const info = await (await fetch(`http://127.0.0.1:${url.port}/api/info${url.search}`)).json();
    expect(info).toMatchObject({ write: true });
    command.child.kill("SIGINT");
    expect(await command.exited).toBe(0);
  });

  it("refuses a port out of range as a usage error", async () => {
    const command = startCommand(["--store", `file:${directory}`, "--port", "70000"]);
    expect(await command.exited).toBe(2);
    expect(command.errors()).toContain("--port must be at most 65535");
    await command.url.catch(() => {});
  });
});
