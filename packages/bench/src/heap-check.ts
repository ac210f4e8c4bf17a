/**
 * The heap rows alone, as JSON, for a test or a quick look:
 * `node --expose-gc --import tsx src/heap-check.ts [messages]`. Their own process, so nothing else the
 * process made earlier moves the figures.
 */
import { heapRows } from "./storage-scenario.js";

const count = Number(process.argv[2] ?? 10_000);
console.log(JSON.stringify(await heapRows(count)));
