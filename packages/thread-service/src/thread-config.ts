import { type JsonValue, type RunConfig, SkeinError } from "@skein/thread-core";
import { canonicalJson } from "@skein/thread-core/driver";
import { Ajv, type ErrorObject } from "ajv";
import { InvalidThreadConfigError } from "./errors.js";
import type { OutputValidator } from "./output-validator.js";

/** What a thread runs with, fixed when it is created: nothing changes it afterwards. */
export interface ThreadConfig extends RunConfig {
  /** The longest one message may take, in milliseconds; the run is then aborted through its signal. */
  maxTime?: number;
}

/**
 * What `createThread` accepts: a `ThreadConfig`, whose output schema may also be a JSON string, plus the
 * runtime design's names as aliases. Validation turns it into a `ThreadConfig` under today's names.
 */
export interface ThreadConfigInput extends Omit<ThreadConfig, "outputSchema"> {
  /** A JSON Schema the model's final answer must match, as an object or as JSON text. */
  outputSchema?: Record<string, JsonValue> | string;
  /** The design's name for `outputSchema`; giving both with different values is refused. */
  structuredOutputSchema?: Record<string, JsonValue> | string;
}

/** The design's names and today's: the alias is stored under today's name. */
const ALIASES = { structuredOutputSchema: "outputSchema" } as const;

/** Documents deeper than this are refused, so hostile input cannot overflow the stack of anyone reading it. */
const MAX_DEPTH = 64;
/** Configurations with more values than this (a shared object counted once per use) are refused. */
const MAX_VALUES = 100_000;

const CONFIG_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    systemPrompt: { type: "string" },
    model: { type: "string", minLength: 1 },
    temperature: { type: "number", minimum: 0, maximum: 2 },
    thinkingLevel: { enum: ["none", "low", "medium", "high"] },
    maxInputTokens: { type: "integer", minimum: 1 },
    maxOutputTokens: { type: "integer", minimum: 1 },
    maxTime: { type: "integer", minimum: 1 },
    outputSchema: { type: "object" },
    parameters: { type: "object" },
    tags: { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true },
    imageCapabilityNeeded: { type: "boolean" },
    embeddingOutputNeeded: { type: "boolean" },
  },
} as const;

const checkShape = new Ajv({ allErrors: true }).compile(CONFIG_SCHEMA);

/**
 * Validates a thread configuration and returns a deep-frozen copy of it; `InvalidThreadConfigError` lists
 * every problem. The output schema is compiled once here, so a broken one fails at creation, not at the
 * first message.
 */
export function validateThreadConfig(
  config: ThreadConfigInput | undefined,
  validator: OutputValidator,
): Readonly<ThreadConfig> {
  const jsonProblems = nonJsonIssues(config ?? {});
  if (jsonProblems.length > 0) throw new InvalidThreadConfigError(jsonProblems);
  const copy = normalizeNames(JSON.parse(JSON.stringify(config ?? {})) as unknown);
  if (!checkShape(copy)) throw new InvalidThreadConfigError((checkShape.errors ?? []).map(describeIssue));
  const valid = copy as ThreadConfig;
  if (valid.outputSchema) {
    try {
      validator.compile(valid.outputSchema);
    } catch (error) {
      if (!SkeinError.isInstance(error)) throw error;
      throw new InvalidThreadConfigError([error.message.replace(/^\[thread-service\] /, "")], {
        cause: error,
      });
    }
  }
  return deepFreeze(valid);
}

/**
 * Stores each alias under today's name and parses schemas given as JSON text, so the frozen configuration
 * has one name and one form per field. Conflicting or unparsable values are refused here.
 */
function normalizeNames(config: unknown): unknown {
  if (typeof config !== "object" || config === null || Array.isArray(config)) return config;
  const fields = { ...(config as Record<string, unknown>) };
  const issues: string[] = [];
  for (const [alias, name] of Object.entries(ALIASES)) {
    if (!(alias in fields)) continue;
    const value = fields[alias];
    delete fields[alias];
    if (
      name in fields &&
      !sameJson(parseSchemaText(fields[name], name, []), parseSchemaText(value, alias, []))
    ) {
      issues.push(
        `config.${alias} and config.${name} name one field and are both given, with different values`,
      );
    } else fields[name] = value;
  }
  if ("outputSchema" in fields)
    fields.outputSchema = parseSchemaText(fields.outputSchema, "outputSchema", issues);
  if (issues.length > 0) throw new InvalidThreadConfigError(issues);
  return fields;
}

/** A schema given as JSON text, parsed; other values as they are (the shape check judges them). */
function parseSchemaText(value: unknown, field: string, issues: string[]): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    issues.push(`config.${field} is a string but not JSON text: ${(error as Error).message}`);
    return value;
  }
}

function sameJson(left: unknown, right: unknown): boolean {
  try {
    return canonicalJson(left as JsonValue) === canonicalJson(right as JsonValue);
  } catch {
    return false;
  }
}

/** The part of a configuration a runner understands: everything but `maxTime`, which the service enforces. */
export function runConfigOf(config: Readonly<ThreadConfig>): Readonly<RunConfig> {
  const { maxTime: _maxTime, ...runConfig } = config;
  return Object.freeze(runConfig);
}

/** Freezes a JSON value and everything in it. */
export function deepFreeze<T>(value: T): Readonly<T> {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function describeIssue(error: ErrorObject): string {
  const where = `config${error.instancePath.replaceAll("/", ".")}`;
  if (error.keyword === "additionalProperties") {
    return `${where} has an unknown field ${JSON.stringify(error.params.additionalProperty)}`;
  }
  if (error.keyword === "enum") {
    return `${where} must be one of ${(error.params.allowedValues as string[]).join(", ")}`;
  }
  return `${where} ${error.message ?? "is invalid"}`;
}

/**
 * Where `value` is not plain JSON data (functions, cycles, class instances, non-finite numbers), iteratively.
 * A cycle is an object inside itself, looked for along the path to it only: an object used twice side by side
 * (one schema given under both names, a schema reusing a sub-schema) is plain JSON, written out twice. The
 * values visited, shared ones once per use, are bounded, so reuse cannot make the written copy explode.
 */
function nonJsonIssues(value: unknown): string[] {
  const issues: string[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number; parent: Ancestor | undefined }> = [
    { value, path: "config", depth: 0, parent: undefined },
  ];
  let visited = 0;
  while (stack.length > 0 && issues.length < 10) {
    const current = stack.pop() as (typeof stack)[number];
    if (++visited > MAX_VALUES) {
      issues.push(`config holds more than ${MAX_VALUES} values (shared objects count once per use)`);
      break;
    }
    const item = current.value as JsonValue | undefined;
    // An absent optional field (`model: undefined`) is simply left out, as JSON.stringify does.
    if (item === undefined || item === null || typeof item === "string" || typeof item === "boolean")
      continue;
    if (typeof item === "number") {
      if (!Number.isFinite(item)) issues.push(`${current.path} must be a finite number`);
      continue;
    }
    if (typeof item !== "object") {
      issues.push(`${current.path} is a ${typeof item}, not JSON data`);
      continue;
    }
    const prototype = Object.getPrototypeOf(item);
    if (!Array.isArray(item) && prototype !== Object.prototype && prototype !== null) {
      issues.push(`${current.path} must be a plain object`);
    } else if (holds(current.parent, item)) {
      issues.push(`${current.path} is a cycle: it holds itself`);
    } else if (current.depth >= MAX_DEPTH) {
      issues.push(`${current.path} is nested deeper than ${MAX_DEPTH} levels`);
    } else {
      const parent = { item, parent: current.parent };
      for (const [key, child] of Object.entries(item)) {
        if (key === "__proto__") issues.push(`${current.path} has the key "__proto__"`);
        else stack.push({ value: child, path: `${current.path}.${key}`, depth: current.depth + 1, parent });
      }
    }
  }
  return issues;
}

/** The objects on the path to a value, innermost first. */
interface Ancestor {
  item: object;
  parent: Ancestor | undefined;
}

/** Whether `item` is on the path `ancestor` ends; at most MAX_DEPTH steps. */
function holds(ancestor: Ancestor | undefined, item: object): boolean {
  for (let at = ancestor; at; at = at.parent) if (at.item === item) return true;
  return false;
}
