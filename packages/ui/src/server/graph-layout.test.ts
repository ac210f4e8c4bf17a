import { describe, expect, it } from "vitest";
import { layoutColumns } from "./graph-layout.js";

describe("layoutColumns", () => {
  it("keeps a straight history in one lane", () => {
    const columns = layoutColumns([{ key: "c", parent: "b" }, { key: "b", parent: "a" }, { key: "a" }]);
    expect([...columns.values()]).toEqual([0, 0, 0]);
  });

  it("gives branches lanes to the right and joins them at the node they came from", () => {
    // The same tree `skein log` draws as: * head / | * old / | | * fork / | |/ / | * mid / |/ / * cp
    const columns = layoutColumns([
      { key: "head", parent: "cp" },
      { key: "old", parent: "mid" },
      { key: "fork", parent: "mid" },
      { key: "mid", parent: "cp" },
      { key: "cp", parent: "root" },
      { key: "root" },
    ]);
    expect(Object.fromEntries(columns)).toEqual({ head: 0, old: 1, fork: 2, mid: 1, cp: 0, root: 0 });
  });
});
