import { type JsonValue, type Message, messageText, SkeinError } from "@skein/thread-core";
import { canonicalJson } from "@skein/thread-core/driver";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { OutputValidationError, type OutputValidationIssue } from "./errors.js";

/** Compiled validators kept per distinct schema; enough for every thread configuration a service sees at once. */
const CACHE_LIMIT = 256;
const FENCED = /^```[a-zA-Z]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

type Draft = "draft-07" | "2019-09" | "2020-12";

/**
 * Validates a runner's final answer against a thread's `outputSchema` (JSON Schema draft 2020-12 by default;
 * 2019-09 and draft-07 when the schema's `$schema` says so), with ajv.
 */
export class OutputValidator {
  readonly #engines = new Map<Draft, Ajv>();
  readonly #compiled = new Map<string, ValidateFunction>();

  /** Compiles `schema` (cached); throws a `SkeinError` when it is not a schema ajv can use. */
  compile(schema: Record<string, JsonValue>): ValidateFunction {
    const key = canonicalJson(schema);
    const cached = this.#compiled.get(key);
    if (cached) return cached;
    const engine = this.#engine(draftOf(schema));
    let validate: ValidateFunction;
    try {
      // ajv keeps schemas that carry an $id; a copy without it keeps every thread's schema independent.
      const { $id: _id, ...rest } = schema;
      validate = engine.compile(rest);
    } catch (error) {
      throw new SkeinError(`outputSchema is not a valid JSON Schema: ${(error as Error).message}`, {
        source: "thread-service",
        cause: error,
      });
    }
    if (this.#compiled.size >= CACHE_LIMIT) {
      this.#compiled.delete(this.#compiled.keys().next().value as string);
    }
    this.#compiled.set(key, validate);
    return validate;
  }

  /**
   * The parsed JSON of the last assistant message in `messages`, when it matches `schema`; otherwise an
   * `OutputValidationError` carrying the validator's errors.
   */
  validate(
    schema: Record<string, JsonValue>,
    messages: readonly Message[],
    where: { threadId: string; messageId: string },
  ): JsonValue {
    const final = [...messages].reverse().find((message) => message.role === "assistant");
    const text = final ? messageText(final).trim() : "";
    const fail = (errors: OutputValidationIssue[]) =>
      new OutputValidationError(where.threadId, where.messageId, errors, text);
    if (!final) {
      throw fail([
        { instancePath: "", keyword: "json", message: "the runner appended no assistant message" },
      ]);
    }
    let value: JsonValue;
    try {
      value = JSON.parse(FENCED.exec(text)?.[1] ?? text) as JsonValue;
    } catch (error) {
      throw fail([
        { instancePath: "", keyword: "json", message: `is not JSON (${(error as Error).message})` },
      ]);
    }
    const validate = this.compile(schema);
    if (!validate(value)) throw fail((validate.errors ?? []).map(toIssue));
    return value;
  }

  #engine(draft: Draft): Ajv {
    let engine = this.#engines.get(draft);
    if (!engine) {
      // Formats need ajv-formats, which skein does not ship: `format` is an annotation here, not a check.
      const options = { allErrors: true, strict: false, validateFormats: false };
      engine =
        draft === "2020-12"
          ? new Ajv2020(options)
          : draft === "2019-09"
            ? new Ajv2019(options)
            : new Ajv(options);
      this.#engines.set(draft, engine);
    }
    return engine;
  }
}

function draftOf(schema: Record<string, JsonValue>): Draft {
  const declared = schema.$schema;
  if (declared === undefined) return "2020-12";
  if (typeof declared === "string") {
    if (declared.includes("2020-12")) return "2020-12";
    if (declared.includes("2019-09")) return "2019-09";
    if (declared.includes("draft-07")) return "draft-07";
  }
  throw new SkeinError(
    `outputSchema declares $schema ${JSON.stringify(declared)}; use draft 2020-12, 2019-09 or draft-07.`,
    { source: "thread-service" },
  );
}

function toIssue(error: ErrorObject): OutputValidationIssue {
  return {
    instancePath: error.instancePath,
    keyword: error.keyword,
    message: error.message ?? "is invalid",
    params: { ...error.params },
  };
}
