import { describe, expect, it } from "vitest";
import { findJsonSyntaxError } from "./json-syntax-error.js";

describe("findJsonSyntaxError", () => {
  it("finds nothing wrong in what JSON.parse accepts", () => {
    for (const text of [
      '{"a":[1,-2.5e3,true,false,null,"x\\u00e9\\n"]}',
      " [ ] ",
      '"s"',
      "0",
      '{"":{}}',
      "\n{\n}\n",
    ]) {
      expect(JSON.parse(text)).toBeDefined();
      expect(findJsonSyntaxError(text)).toBeUndefined();
    }
  });

  it("points at the line and column of the first error, and says what was expected", () => {
    expect(findJsonSyntaxError('{"a":}')).toMatchObject({
      line: 1,
      column: 6,
      problem: "expected a value, found '}'",
    });
    expect(findJsonSyntaxError('{\n  "a": 1\n  "b": 2\n}')).toMatchObject({
      line: 3,
      column: 3,
      problem: "expected ',' or '}', found '\"'",
    });
    expect(findJsonSyntaxError("[1,2,]")).toMatchObject({
      offset: 5,
      problem: "expected a value, found ']'",
    });
    expect(findJsonSyntaxError("{a:1}")).toMatchObject({
      column: 2,
      problem: expect.stringContaining("property name"),
    });
    expect(findJsonSyntaxError('{"a":1')).toMatchObject({ offset: 6, problem: "unexpected end of input" });
    expect(findJsonSyntaxError('"abc')).toMatchObject({
      offset: 0,
      problem: "a string that is never closed",
    });
    expect(findJsonSyntaxError('"a\\x"')).toMatchObject({
      offset: 2,
      problem: "invalid escape \\x in a string",
    });
    expect(findJsonSyntaxError('"a\nb"')).toMatchObject({ offset: 2 });
    expect(findJsonSyntaxError("{} {}")).toMatchObject({
      offset: 3,
      problem: "unexpected '{' after the JSON value",
    });
    expect(findJsonSyntaxError("")).toMatchObject({ offset: 0, problem: "unexpected end of input" });
  });

  it("agrees with JSON.parse on every prefix of a document", () => {
    const text =
      '{"thread":{"id":"x","messages":[{"role":"user","text":"a \\"quoted\\" \\u00e9"}],"n":-1.5e-3,"ok":true}}';
    for (let end = 0; end <= text.length; end++) {
      const prefix = text.slice(0, end);
      let valid = true;
      try {
        JSON.parse(prefix);
      } catch {
        valid = false;
      }
      expect(findJsonSyntaxError(prefix) === undefined, prefix).toBe(valid);
    }
  });

  it("handles deep nesting without recursion", () => {
    expect(findJsonSyntaxError(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)).toBeUndefined();
    expect(findJsonSyntaxError("[".repeat(100_000))).toMatchObject({ problem: "unexpected end of input" });
  });
});
