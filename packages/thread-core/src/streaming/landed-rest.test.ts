import { describe, expect, it } from "vitest";
import type { Message } from "../spec/message.js";
import { landedRest, mergeDeltas } from "./stream-deltas.js";

const landed = (contents: Message["contents"], status?: "interrupted"): Message => ({
  id: "r",
  role: "assistant",
  createdAt: "2026-12-06T00:00:00.000Z",
  contents,
  ...(status ? { status } : {}),
});

describe("landedRest: what completes the deltas read into the message a reply became", () => {
  it("gives the rest of the last part's text, then the parts after it", () => {
    const read = mergeDeltas([
      { type: "text", text: "a" },
      { type: "text", text: "b" },
    ]);
    const message = landed([
      { type: "text", text: "abcd" },
      { type: "reasoning", text: "e" },
    ]);
    expect(landedRest(read, message)).toEqual([
      { type: "text", text: "cd" },
      { type: "reasoning", text: "e" },
    ]);
    expect(landedRest([], message)).toEqual(message.contents);
    expect(landedRest(message.contents, message)).toEqual([]);
  });

  it("gives nothing when the message does not start with what was read", () => {
    const read = mergeDeltas([{ type: "text", text: "draft" }]);
    expect(landedRest(read, landed([{ type: "text", text: "final" }]))).toBeUndefined();
    expect(landedRest(read, landed([]))).toBeUndefined();
    const two = mergeDeltas([
      { type: "reasoning", text: "r" },
      { type: "text", text: "t" },
    ]);
    expect(
      landedRest(
        two,
        landed([
          { type: "reasoning", text: "x" },
          { type: "text", text: "t" },
        ]),
      ),
    ).toBeUndefined();
  });

  it("leaves out the error part an interrupted reply ends with", () => {
    const read = mergeDeltas([{ type: "text", text: "par" }]);
    const failed = landed(
      [
        { type: "text", text: "partial" },
        { type: "error", message: "model went away" },
      ],
      "interrupted",
    );
    expect(landedRest(read, failed)).toEqual([{ type: "text", text: "tial" }]);
  });
});
