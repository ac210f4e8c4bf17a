import { describe, expect, it } from "vitest";
import { erasureReportLines } from "./erasure-report.js";

const report = {
  owner: "u-7",
  threads: 3,
  messages: 9,
  bytes: 2048,
  erased: [],
  keptShared: [],
  remote: [],
};

describe("skein erase's text report", () => {
  it("says how the data went: deleted, or deleted and crypto-shredded", () => {
    expect(erasureReportLines({ ...report, method: "deleted" })[0]).toBe(
      'erased 3 threads of "u-7": 9 messages, 2048 bytes (deleted)',
    );
    expect(erasureReportLines({ ...report, method: "deleted+crypto-shredded" })).toEqual([
      'erased 3 threads of "u-7": 9 messages, 2048 bytes (deleted+crypto-shredded)',
    ]);
  });

  it("says why the owner's keys were kept, before the forks that kept them", () => {
    const lines = erasureReportLines({
      ...report,
      method: "deleted",
      keyKept: "1 kept fork(s) of other owners share messages sealed with the owner's keys",
      keptShared: [{ id: "f-1", scopes: ["tenant-a"], type: "fs", owner: "u-8" }],
      followUp: "run VACUUM FULL",
    });
    expect(lines).toEqual([
      'erased 3 threads of "u-7": 9 messages, 2048 bytes (deleted)',
      "owner's keys kept: 1 kept fork(s) of other owners share messages sealed with the owner's keys",
      'kept f-1 (scope tenant-a): a fork of "u-8" that shares the owner\'s messages (--include-shared-forks erases it)',
      "still to do: run VACUUM FULL",
    ]);
  });
});
