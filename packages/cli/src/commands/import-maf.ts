import { readFile } from "node:fs/promises";
import { fromMafHistory, fromMafSession, sessionIdFromHistoryFileName } from "@skein/maf";
import type { ThreadState } from "@skein/thread-core";
import { CliError, UsageError } from "../cli/cli-error.js";
import type { CommandContext } from "../cli/command.js";
import { describeError } from "../cli/describe-error.js";
import { EXIT_CODES } from "../cli/exit-codes.js";
import { readStream } from "../input/read-input.js";

/**
 * `skein import --from maf FILE`: a MAF session (Python `AgentSession.to_dict()` or `FileSessionStore` file, .NET
 * `ChatClientAgentSession`), a `FileHistoryProvider` `.jsonl` file (its session id from the file name), or a JSON
 * array of a Redis history list's strings (`--id` names it). One document, one thread: read whole and checked
 * before anything is written.
 */
export async function importMaf(
  context: CommandContext,
  path: string,
  id: string | undefined,
): Promise<{ id: string; type: string }> {
  const bytes = await readBytes(path, context.stdin);
  const state = mafState(bytes, path, id);
  const store = await context.store({ create: true });
  try {
    // A remote state (openai.responses, a2a, …) is saved as it is: binding it would need the service's client,
    // which the CLI does not have; its type must be registered (`--types @skein/adapter-openai`).
    if (state.$type !== "memory") {
      await store.save(state, { ifRevision: 0 });
      return { id: state.id, type: state.$type };
    }
    const thread = await store.import(state);
    return { id: thread.id, type: thread.type };
  } catch (error) {
    const { line, exitCode } = describeError(error);
    throw new CliError(`${path}: ${line}`, exitCode, { cause: error });
  }
}

function mafState(bytes: Uint8Array, path: string, id: string | undefined): ThreadState {
  try {
    if (path.endsWith(".jsonl")) {
      const sessionId = sessionIdFromHistoryFileName(path);
      return fromMafHistory(bytes, {
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(id === undefined ? {} : { id }),
      });
    }
    const text = new TextDecoder().decode(bytes);
    const list = text.trimStart().startsWith("[") ? parseList(text) : undefined;
    if (list) {
      if (id === undefined)
        throw new UsageError(
          `${path} holds a Redis history list: give --id for the thread (the list's key names the session)`,
        );
      return fromMafHistory(list, { sessionId: id });
    }
    return fromMafSession(bytes, id === undefined ? {} : { id });
  } catch (error) {
    if (CliError.isInstance(error)) throw error;
    const { line, exitCode } = describeError(error);
    throw new CliError(`${path}: ${line}`, exitCode, { cause: error });
  }
}

/** A JSON array of strings (the `LRANGE` of a Redis history), or undefined for any other document. */
function parseList(text: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes, not text: MAF's msgpack files are recognised (and refused) by their first bytes. */
async function readBytes(path: string, stdin: NodeJS.ReadableStream): Promise<Uint8Array> {
  if (path === "-") return new TextEncoder().encode(await readStream(stdin));
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new CliError(`no such file: ${path}`, EXIT_CODES.notFound, { cause: error });
    if (code === "EISDIR") throw new CliError(`${path} is a directory, not a file`, EXIT_CODES.usage);
    throw error;
  }
}
