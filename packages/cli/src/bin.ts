#!/usr/bin/env node
import { runCli } from "./cli/run-cli.js";

// `skein … | head` closes stdout early: that is the reader's choice, not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2));
