import { isPlainObject } from "./json.js";
import { stateSchemaTypes } from "./state-schema-marker.js";

/**
 * Where nested states sit in a value: `"state"`, the value is one (a `stateOf` field); `"any"`, any object
 * with a `$type` at any depth is one (a thread's `context`); or arrays and records of those.
 */
export type StateShape = "state" | "any" | { array: StateShape } | { record: StateShape };

type ZodDefinition = {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  element?: unknown;
  valueType?: unknown;
  in?: unknown;
};

function definitionOf(schema: unknown): ZodDefinition | undefined {
  return (schema as { _zod?: { def?: ZodDefinition } } | undefined)?._zod?.def;
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch"]);

/** Where a field's schema holds `stateOf` states, or undefined when it holds none. */
function shapeOf(schema: unknown, depth = 0): StateShape | undefined {
  if (depth > 16) return undefined;
  if (stateSchemaTypes(schema) !== undefined) return "state";
  const definition = definitionOf(schema);
  if (!definition?.type) return undefined;
  if (WRAPPERS.has(definition.type)) return shapeOf(definition.innerType, depth + 1);
  if (definition.type === "pipe") return shapeOf(definition.in, depth + 1);
  if (definition.type === "array") {
    const inner = shapeOf(definition.element, depth + 1);
    return inner && { array: inner };
  }
  if (definition.type === "record") {
    const inner = shapeOf(definition.valueType, depth + 1);
    return inner && { record: inner };
  }
  return undefined;
}

const fieldsCache = new WeakMap<object, ReadonlyArray<[string, StateShape]>>();

/** The top-level fields of an object schema that hold nested states, found once per schema. */
export function stateFields(schema: unknown): ReadonlyArray<[string, StateShape]> {
  if (typeof schema !== "object" || schema === null) return [];
  const cached = fieldsCache.get(schema);
  if (cached) return cached;
  let definition = definitionOf(schema);
  while (definition?.type === "pipe") definition = definitionOf(definition.in);
  const found: Array<[string, StateShape]> = [];
  if (definition?.type === "object" && definition.shape) {
    for (const [key, field] of Object.entries(definition.shape)) {
      const shape = shapeOf(field);
      if (shape) found.push([key, shape]);
    }
  }
  fieldsCache.set(schema, found);
  return found;
}

/** A copy of `value` with every nested state at `shape` replaced by what `parse` makes of it. */
export function walkStateFields(
  value: unknown,
  shape: StateShape,
  path: Array<string | number>,
  parse: (state: Record<string, unknown>, path: Array<string | number>) => unknown,
): unknown {
  if (shape === "state") return isPlainObject(value) ? parse(value, path) : value;
  if (shape === "any") {
    if (Array.isArray(value))
      return value.map((item, index) => walkStateFields(item, "any", [...path, index], parse));
    if (!isPlainObject(value)) return value;
    if (typeof value.$type === "string") return parse(value, path);
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, walkStateFields(item, "any", [...path, key], parse)]),
    );
  }
  if ("array" in shape) {
    return Array.isArray(value)
      ? value.map((item, index) => walkStateFields(item, shape.array, [...path, index], parse))
      : value;
  }
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      walkStateFields(item, shape.record, [...path, key], parse),
    ]),
  );
}

/**
 * The JSON Schema of "a value that may hold nested states anywhere": an object whose `$type` is registered
 * must match that type's definition, and so must every such object inside it, at any depth.
 */
export function nestedStateSchema(typeIds: readonly string[]): Record<string, unknown> {
  return {
    allOf: typeIds.map((id) => ({
      if: { type: "object", properties: { $type: { const: id } }, required: ["$type"] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword, never awaited
      then: { $ref: `#/$defs/${id}` },
    })),
    additionalProperties: { $ref: "#/$defs/$nested" },
    items: { $ref: "#/$defs/$nested" },
  };
}
