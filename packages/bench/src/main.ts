import { openStore } from "@skein/thread-core";
import { printTable } from "./measure.js";
import { rawReadRow, type ScalingTarget, scalingRows } from "./scaling.js";

const targets: ScalingTarget[] = [{ name: "memory", open: () => openStore("memory:") }];

console.log(`skein bench — Node ${process.version}, medians of repeated runs\n`);
console.log("Scaling: cost of one operation on a thread of 10 vs 100,000 messages");
const rows: string[][] = [];
for (const target of targets) {
  process.stderr.write(`  measuring ${target.name}…\n`);
  rows.push(...(await scalingRows(target)));
}
rows.push(await rawReadRow());
printTable(["store", "operation", "10 msgs", "100,000 msgs", "ratio"], rows);
