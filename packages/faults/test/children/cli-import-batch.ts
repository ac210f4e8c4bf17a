// Runs `skein import <file>` for each file a manifest names, through the CLI's own entry point (runCli,
// what bin.js runs) in this one process, and prints one JSON line per file: exit code, the start of standard
// output and error, how many lines and characters the error had, whether it held a stack frame or a raw
// control character, milliseconds; then a last line with any pollution of the built-in prototypes. An import
// still running after HANG_MS is a hang: its line says `hung` with the shapes of the file's documents, and
// the process exits with 3 at once; the test starts it again at the next file (`from`, counted from 0).
// Usage: cli-import-batch.ts <store url> <manifest.json: [{ file, kind }]> <from>
import { readFile } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import { runCli } from "@skein/cli";
import { settleWithin, shapesOfText } from "../support/hangs.js";
import { polluted, prototypeFingerprint } from "../support/hostile-documents.js";

const [url, manifest, from] = process.argv.slice(2) as [string, string, string];
// Generous on purpose: a hang never settles, while a machine busy with other work may take seconds.
const HANG_MS = 30_000;
const files = JSON.parse(await readFile(manifest, "utf8")) as Array<{ file: string; kind: string }>;
const fingerprint = prototypeFingerprint();
let pollutedBy: string | undefined;
const late: string[] = [];
process.on("unhandledRejection", (reason) => late.push(`unhandled rejection: ${String(reason)}`));
process.on("uncaughtException", (error) => late.push(`uncaught exception: ${String(error)}`));

function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

for (const { file, kind } of files.slice(Number(from))) {
  const stdout = collector();
  const stderr = collector();
  const started = performance.now();
  const run = await settleWithin(
    () =>
      runCli(["--store", url, "import", file], {
        stdout: stdout.stream,
        stderr: stderr.stream,
        stdin: Readable.from([]),
        environment: {},
      }),
    HANG_MS,
  );
  if (!run.settled) {
    const shapes = shapesOfText(await readFile(file, "utf8"));
    process.stdout.write(`${JSON.stringify({ file, kind, hung: true, shapes, pollutedBy, late })}\n`);
    process.exit(3);
  }
  const code = run.value;
  const ms = Math.round(performance.now() - started);
  if (!pollutedBy && (polluted() || prototypeFingerprint() !== fingerprint)) pollutedBy = kind;
  const error = stderr.text();
  const result = {
    file,
    kind,
    code,
    ms,
    stdout: stdout.text().slice(0, 500),
    stderr: error.slice(0, 2_000),
    stderrLines: error.split("\n").length - 1,
    stderrLength: error.length,
    stackFrame: /\n\s+at /.test(error),
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
    controlCharacter: /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(error),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
process.stdout.write(`${JSON.stringify({ done: files.length - Number(from), pollutedBy, late })}\n`);
