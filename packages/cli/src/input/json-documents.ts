import { CliError } from "../cli/cli-error.js";
import { EXIT_CODES } from "../cli/exit-codes.js";
import { findJsonSyntaxError } from "./json-syntax-error.js";

/** One JSON value read from input, with where it was, for error messages (`line 3`, `item 2`). */
export interface JsonDocument {
  value: unknown;
  where: string;
}

/**
 * Reads what `skein export` writes and what people hand-write: one JSON value (pretty or not), a JSON
 * array of values, or JSON Lines (one value a line). A syntax error names its line and column.
 */
export function parseJsonDocuments(text: string, source: string): JsonDocument[] {
  const body = text.replace(/^\uFEFF/, "");
  if (body.trim() === "") throw invalid(`${source} is empty; expected JSON`);
  try {
    const value: unknown = JSON.parse(body);
    if (!Array.isArray(value)) return [{ value, where: source }];
    return value.map((item, index) => ({ value: item, where: `${source} item ${index + 1}` }));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  const lines = body.split("\n");
  const firstLine = lines.findIndex((line) => line.trim() !== "");
  if (lines.filter((line) => line.trim() !== "").length > 1 && parses(lines[firstLine] as string)) {
    return parseJsonLines(lines, source);
  }
  throw syntaxError(body, source, 0);
}

function parseJsonLines(lines: string[], source: string): JsonDocument[] {
  const documents: JsonDocument[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      documents.push({ value: JSON.parse(line), where: `${source} line ${index + 1}` });
    } catch {
      throw syntaxError(line, source, index);
    }
  });
  return documents;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function syntaxError(text: string, source: string, lineOffset: number): CliError {
  const found = findJsonSyntaxError(text);
  if (!found) return invalid(`${source} is not valid JSON`);
  return invalid(
    `${source} is not valid JSON: line ${found.line + lineOffset}, column ${found.column}: ${found.problem}`,
  );
}

function invalid(message: string): CliError {
  return new CliError(message, EXIT_CODES.invalidData);
}
