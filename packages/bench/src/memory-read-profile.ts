/**
 * The memory store's read rows of the scaling table, alone, for a quick look while working on them:
 * `node --expose-gc --import tsx src/memory-read-profile.ts [repeats]`. Each repeat runs the scaling rows
 * on a fresh memory store, exactly as `npm run bench` does, and prints the read rows.
 */
import { openStore } from "@skein/thread-core";
import { scalingRows } from "./scaling.js";

const repeats = Number(process.argv[2] ?? 3);
const reads = new Set([
  "view(last 20)",
  "messages(last 20)",
  "message(id)",
  "messages({ before, limit: 20 })",
]);
for (let repeat = 0; repeat < repeats; repeat++) {
  const rows = await scalingRows({ name: "memory", open: () => openStore("memory:") });
  for (const row of rows)
    if (reads.has(row[1] as string)) console.log(`${repeat + 1}  ${row.slice(1).join("  ")}`);
}
