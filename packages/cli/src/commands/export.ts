import { open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { finished } from "node:stream/promises";
import { SkeinError, type ThreadStore } from "@skein/thread-core";
import { canonicalJson } from "@skein/thread-core/driver";
import { CliError, UsageError } from "../cli/cli-error.js";
import type { Command } from "../cli/command.js";
import { EXIT_CODES } from "../cli/exit-codes.js";
import { booleanOption, stringOption } from "../cli/option-values.js";
import { Output } from "../cli/output.js";
import { plural } from "../format/plural.js";
import { exportMaf } from "./export-maf.js";

/** How many threads are read at once during `--all`, written in list order. */
const EXPORT_BATCH = 32;

export const exportCommand: Command = {
  name: "export",
  summary: "Write threads as portable JSON (JSON Lines), to stdout or a file",
  usage: "export (<id>… | --all) [--out FILE] [--pretty] [--encrypted] [--to maf-python|maf-dotnet]",
  description: [
    "A local thread (fs, redis, memory) becomes `memory` JSON with its whole history: every segment it reaches, its checkpoints, rollbacks and fork origin, and its revision. Other thread states are written as they are stored.",
    "Format: JSON Lines, one thread per line, keys sorted, so equal threads give equal bytes whatever store they came from (`diff` two exports to compare stores). --pretty writes one indented JSON object, or an indented JSON array for several threads. `skein import` reads all of these.",
    "An export is plain JSON by default (the user's data, readable anywhere). On an encrypted store, --encrypted keeps every message, title, metadata, context and label sealed as stored, with its key id (listed under `$encrypted`): only a store opened with the same keys imports it, under the same id and scope.",
  ].join("\n\n"),
  options: {
    all: { type: "boolean", description: "every thread in the store (in the --scope, if given)" },
    out: {
      type: "string",
      placeholder: "FILE",
      description: "write to FILE (atomically: it appears complete or not at all)",
    },
    pretty: { type: "boolean", description: "indented JSON: an object, or an array for several threads" },
    encrypted: {
      type: "boolean",
      description: "keep the encrypted store's ciphertext and key ids (import needs the same keys)",
    },
    to: {
      type: "string",
      placeholder: "FORMAT",
      description: "one thread as a Microsoft Agent Framework session: maf-python or maf-dotnet",
    },
  },
  examples: [
    "skein export support-42 > support-42.json",
    "skein export --all --out backup.jsonl",
    "skein --store redis://localhost:6379 export --all | skein --store file:./copy import -",
    "skein export --to maf-python sess_1 > sess_1.json",
  ],
  async run(context) {
    const all = booleanOption(context, "all");
    if (all === context.positionals.length > 0)
      throw new UsageError("give thread ids or --all, not both and not neither");
    const store = await context.store();
    const ids = all ? allIds(store) : listed(context.positionals);
    const out = stringOption(context, "out");
    const pretty = booleanOption(context, "pretty");
    const target = stringOption(context, "to");
    const encrypted = booleanOption(context, "encrypted");
    if (target !== undefined) {
      if (all) throw new UsageError("--to maf-… writes one thread, not --all");
      if (encrypted) throw new UsageError("--to maf-… writes a readable session, not --encrypted");
      const session = await exportMaf(context, target, context.positionals);
      const text = pretty ? JSON.stringify(JSON.parse(session), null, 2) : session;
      if (out === undefined) return context.stdout.data(text);
      await writeFileAtomically(out, (output) => output.data(text));
      if (context.json) return context.stdout.json({ file: out, threads: 1 });
      return context.stderr.line(`exported 1 thread to ${out}`);
    }
    if (out === undefined) {
      await writeExports(store, ids, context.stdout, pretty, encrypted);
      return;
    }
    const count = await writeFileAtomically(out, (output) =>
      writeExports(store, ids, output, pretty, encrypted),
    );
    if (context.json) return context.stdout.json({ file: out, threads: count });
    await context.stderr.line(`exported ${plural(count, "thread")} to ${out}`);
  },
};

/** Writes each thread's export in order; returns how many were written. */
async function writeExports(
  store: ThreadStore,
  ids: AsyncIterable<string[]>,
  output: Output,
  pretty: boolean,
  encrypted: boolean,
): Promise<number> {
  let count = 0;
  const pending: string[] = [];
  const options = encrypted ? { encrypted: true } : {};
  for await (const batch of ids) {
    const exports = await Promise.all(batch.map((id) => store.export(id, options)));
    for (const state of exports) {
      const text = canonicalJson(state);
      if (!pretty) await output.data(text);
      else pending.push(JSON.stringify(JSON.parse(text), null, 2));
      count++;
    }
  }
  if (pretty)
    await output.data(
      pending.length === 1
        ? (pending[0] as string)
        : `[\n${pending.map((item) => item.replace(/^/gm, "  ")).join(",\n")}\n]`,
    );
  return count;
}

async function* allIds(store: ThreadStore): AsyncGenerator<string[]> {
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: EXPORT_BATCH, ...(cursor === undefined ? {} : { cursor }) });
    if (page.items.length > 0) yield page.items.map((item) => item.id);
    cursor = page.cursor;
  } while (cursor !== undefined);
}

async function* listed(ids: string[]): AsyncGenerator<string[]> {
  for (let start = 0; start < ids.length; start += EXPORT_BATCH) yield ids.slice(start, start + EXPORT_BATCH);
}

async function writeFileAtomically<T>(path: string, write: (output: Output) => Promise<T>): Promise<T> {
  const temporary = `${path}.${process.pid}.partial`;
  // Opened before anything is read, so a path that cannot be written fails at once, as a typed error: a
  // stream opened lazily reported it as an "error" event that nothing listened to, and Node died with a stack.
  const handle = await open(temporary, "w").catch((error: unknown) => {
    throw outputError(path, error);
  });
  const stream = handle.createWriteStream();
  let failed: unknown;
  // A write that fails later (a full disk) rejects the wait for `drain` or `close` below; kept here too so
  // that an error between two writes is never an unhandled "error" event.
  stream.on("error", (error) => {
    failed ??= error;
  });
  try {
    const result = await write(new Output(stream));
    stream.end();
    // `finished`, not a wait for "close": a stream that already failed and closed emits nothing more.
    await finished(stream);
    if (failed !== undefined) throw failed;
    await rename(temporary, path);
    return result;
  } catch (error) {
    stream.destroy();
    await rm(temporary, { force: true });
    throw SkeinError.isInstance(error) ? error : outputError(path, failed ?? error);
  }
}

/** `--out FILE` could not be written: what the system said, as the CLI's error (exit 1, or 3 for a missing folder). */
function outputError(path: string, error: unknown): CliError {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") {
    return new CliError(
      `cannot write --out ${path}: the directory ${dirname(path)} does not exist`,
      EXIT_CODES.notFound,
      { cause: error },
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new CliError(`cannot write --out ${path}: ${reason}`, EXIT_CODES.failure, { cause: error });
}
