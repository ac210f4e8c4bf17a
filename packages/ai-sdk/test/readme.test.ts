// The README's example is test/readme-example.ts verbatim (type-checked with the package), and it runs.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const example = fileURLToPath(new URL("./readme-example.ts", import.meta.url));
const packageDirectory = fileURLToPath(new URL("..", import.meta.url));

describe("README example", () => {
  it("is test/readme-example.ts, verbatim", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const block = readme
      .split("<!-- example: test/readme-example.ts")[1]
      ?.split("```ts\n")[1]
      ?.split("```")[0];
    expect(block?.trimEnd()).toBe(readFileSync(example, "utf8").trimEnd());
  });

  it("shows the example's route first, verbatim", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const route = readme
      .split("<!-- fragment: the route of the example below")[1]
      ?.split("```ts\n")[1]
      ?.split("```")[0];
    expect(route).toMatch(/^export async function POST/);
    expect(readFileSync(example, "utf8")).toContain(route);
  });

  it("runs: the route streams the answer and the chat is in the thread when the stream ends", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", example], {
      cwd: packageDirectory,
      env: { ...process.env, SKEIN_STORE: "memory:" },
    });
    expect(stdout.trim()).toBe("user: Hi! · assistant: Hello from skein.");
  });
});
