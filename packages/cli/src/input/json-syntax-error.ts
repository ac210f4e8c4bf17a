/** Where a JSON text first goes wrong and why. */
export interface JsonSyntaxError {
  /** 0-based offset into the text. */
  offset: number;
  /** 1-based line and column of `offset`. */
  line: number;
  column: number;
  problem: string;
}

type Expect = "value" | "value-or-end" | "key" | "key-or-end" | "colon" | "comma-or-end" | "done";

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

/**
 * Finds the first syntax error of a JSON text. JSON.parse on Node 20 does not always say where it
 * failed ("Unexpected token '}', … is not valid JSON"), and an import error must point at a line and column.
 * Iterative, so deeply nested input cannot overflow the stack.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const containers: Array<"object" | "array"> = [];
  let expect: Expect = "value";
  let index = 0;
  const fail = (offset: number, problem: string) => ({ ...lineAndColumn(text, offset), offset, problem });
  const afterValue = (): Expect => (containers.length === 0 ? "done" : "comma-or-end");
  for (;;) {
    WHITESPACE.lastIndex = index;
    WHITESPACE.exec(text);
    index = WHITESPACE.lastIndex;
    if (index >= text.length) {
      return expect === "done" ? undefined : fail(text.length, "unexpected end of input");
    }
    const character = text[index] as string;
    if (expect === "done") return fail(index, `unexpected ${describe(character)} after the JSON value`);
    if (expect === "colon") {
      if (character !== ":")
        return fail(index, `expected ':' after a property name, found ${describe(character)}`);
      index++;
      expect = "value";
      continue;
    }
    if (expect === "comma-or-end") {
      const closer = containers[containers.length - 1] === "object" ? "}" : "]";
      if (character === ",") {
        index++;
        expect = closer === "}" ? "key" : "value";
      } else if (character === closer) {
        containers.pop();
        index++;
        expect = afterValue();
      } else return fail(index, `expected ',' or '${closer}', found ${describe(character)}`);
      continue;
    }
    if ((expect === "key-or-end" && character === "}") || (expect === "value-or-end" && character === "]")) {
      containers.pop();
      index++;
      expect = afterValue();
      continue;
    }
    if (expect === "key" || expect === "key-or-end") {
      if (character !== '"') {
        return fail(index, `expected a property name in double quotes, found ${describe(character)}`);
      }
      const end = scanString(text, index);
      if (typeof end !== "number") return fail(end.offset, end.problem);
      index = end;
      expect = "colon";
      continue;
    }
    const next = scanValueStart(text, index);
    if (typeof next !== "number") return fail(next.offset, next.problem);
    if (character === "{" || character === "[") {
      containers.push(character === "{" ? "object" : "array");
      expect = character === "{" ? "key-or-end" : "value-or-end";
    } else expect = afterValue();
    index = next;
  }
}

/** One line saying where and why, for error messages: `line 3, column 14: expected ',' or '}'`. */
export function describeJsonSyntaxError(text: string): string {
  const error = findJsonSyntaxError(text);
  if (!error) return "it is not valid JSON";
  return `line ${error.line}, column ${error.column}: ${error.problem}`;
}

/** Skips a scalar, or the opening bracket of a container; returns the offset after it. */
function scanValueStart(text: string, index: number): number | { offset: number; problem: string } {
  const character = text[index] as string;
  if (character === "{" || character === "[") return index + 1;
  if (character === '"') return scanString(text, index);
  for (const literal of ["true", "false", "null"]) {
    if (text.startsWith(literal, index)) return index + literal.length;
  }
  NUMBER.lastIndex = index;
  if (NUMBER.exec(text)) return NUMBER.lastIndex;
  return { offset: index, problem: `expected a value, found ${describe(character)}` };
}

function scanString(text: string, start: number): number | { offset: number; problem: string } {
  for (let index = start + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) return index + 1;
    if (code < 0x20)
      return { offset: index, problem: "a control character (such as a line break) inside a string" };
    if (code !== 0x5c) continue;
    const escaped = text[index + 1];
    if (escaped === "u") {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) {
        return { offset: index, problem: "a \\u escape needs four hex digits" };
      }
      index += 5;
    } else if (escaped !== undefined && ESCAPES.has(escaped)) index++;
    else return { offset: index, problem: `invalid escape \\${escaped ?? ""} in a string` };
  }
  return { offset: start, problem: "a string that is never closed" };
}

function describe(character: string): string {
  return /\S/.test(character)
    ? `'${character}'`
    : `character U+${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (
    let index = text.indexOf("\n");
    index !== -1 && index < offset;
    index = text.indexOf("\n", index + 1)
  ) {
    line++;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
