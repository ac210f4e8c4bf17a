import { readFile } from "node:fs/promises";
import { CliError } from "../cli/cli-error.js";
import { EXIT_CODES } from "../cli/exit-codes.js";

/** The text of a file, or of stdin for `-`. A missing file is "not found" (exit 3). */
export async function readInput(
  path: string,
  stdin: NodeJS.ReadableStream,
): Promise<{ text: string; source: string }> {
  if (path === "-") return { text: await readStream(stdin), source: "stdin" };
  try {
    return { text: await readFile(path, "utf8"), source: path };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new CliError(`no such file: ${path}`, EXIT_CODES.notFound, { cause: error });
    if (code === "EISDIR") throw new CliError(`${path} is a directory, not a file`, EXIT_CODES.usage);
    throw error;
  }
}

export async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
