// Makes one empty segment with the given id, then prints "made": for a test that kills it at one system call.
import { FsLogDriver } from "../../src/index.js";

const [directory, segmentId] = process.argv.slice(2) as [string, string];
const driver = new FsLogDriver({ directory });
await driver.list({ limit: 1 }); // makes the store's directories
await driver.segments.create(
  { id: segmentId, base: null, start: 0, createdAt: new Date().toISOString() },
  {},
);
process.stdout.write("made\n");
