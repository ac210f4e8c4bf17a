import { describe, expect, it } from "vitest";
import { drawGraph } from "./draw-graph.js";

describe("drawGraph", () => {
  it("draws a straight history as a column of stars", () => {
    expect(
      drawGraph([
        { key: "c", parent: "b", text: "c" },
        { key: "b", parent: "a", text: "b" },
        { key: "a", text: "a" },
      ]),
    ).toEqual(["* c", "* b", "* a"]);
  });

  it("joins branches into the node they came from, git style", () => {
    expect(
      drawGraph([
        { key: "head", parent: "cp", text: "head" },
        { key: "old", parent: "mid", text: "old" },
        { key: "fork", parent: "mid", text: "fork" },
        { key: "mid", parent: "cp", text: "mid" },
        { key: "other", parent: "cp", text: "other" },
        { key: "cp", parent: "root", text: "cp" },
        { key: "root", text: "root" },
      ]),
    ).toEqual([
      "* head",
      "| * old",
      "| | * fork",
      "| |/",
      "| * mid",
      "| | * other",
      "| |/",
      "|/",
      "* cp",
      "* root",
    ]);
  });

  it("closes a finished branch on the left and shifts the others", () => {
    expect(
      drawGraph([
        { key: "a", text: "a" },
        { key: "b", text: "b" },
      ]),
    ).toEqual(["* a", "* b"]);
    expect(
      drawGraph([
        { key: "x", parent: "x0", text: "x" },
        { key: "y", parent: "y0", text: "y" },
        { key: "x0", text: "x0" },
        { key: "y0", text: "y0" },
      ]),
    ).toEqual(["* x", "| * y", "* | x0", " /", "* y0"]);
  });
});
