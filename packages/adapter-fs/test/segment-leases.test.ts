import { expect, it } from "vitest";
import { MAX_SEGMENT_LEASES, SegmentFileCache } from "../src/segments/segment-file-cache.js";

it("never lets more than MAX_SEGMENT_LEASES waiting operations in when overdraft turns are given back", async () => {
  const cache = new SegmentFileCache();
  let running = 0;
  let most = 0;
  const held: Array<() => void> = [];
  // Every turn held, and more operations waiting for one.
  for (let index = 0; index < MAX_SEGMENT_LEASES; index++) held.push(await cache.lease());
  running = MAX_SEGMENT_LEASES;
  const waiting = Array.from({ length: 10 }, async () => {
    const release = await cache.lease();
    running++;
    most = Math.max(most, running);
    held.push(release);
  });
  // Ten commits moving to a new head, one after another: each takes an overdraft turn and gives it back.
  for (let index = 0; index < 10; index++) {
    const release = await cache.lease(true);
    release();
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Nothing of the first MAX_SEGMENT_LEASES has let go yet, so no waiter may have got in (each overdraft
  // given back became a normal turn before: 10 more).
  expect(most).toBeLessThanOrEqual(MAX_SEGMENT_LEASES);
  for (const release of held.splice(0)) release();
  await Promise.all(waiting);
  for (const release of held) release();
  await cache.close();
});
