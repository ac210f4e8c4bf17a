import fc from "fast-check";
import { HOSTILE_KEYS, hostileJsonValues, nonJsonValue, setOwn } from "./hostile-values.js";
import { validStates } from "./thread-states.js";

/**
 * Generated and mutated thread documents for hostile-input tests. `json` documents survive
 * `JSON.stringify` unchanged (what a file or the CLI can carry); the others also hold what only a
 * JavaScript caller can pass (undefined, NaN, functions, cycles, class instances, throwing getters).
 */
export interface HostileDocument {
  /** How the document was made, for reports: `mutated:memory`, `generated:deep-array`, … */
  kind: string;
  value: unknown;
}

/** `$type`s a mutation may set: registered, unregistered, and hostile. */
const TYPES = [
  "memory",
  "fs",
  "redis",
  "workflow",
  "openai.conversation",
  "openai.responses",
  "foundry.conversation",
  "foundry.thread",
  "a2a",
  "acme.ticket",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "",
];
/**
 * The objects and arrays of a document (the root included) that hold plain data, depth-first, bounded.
 * Hostile values an earlier mutation placed (getters, throwing proxies, class instances) are left alone.
 */
function containers(root: unknown): Array<Record<string, unknown> | unknown[]> {
  const found: Array<Record<string, unknown> | unknown[]> = [];
  const stack: unknown[] = [root];
  while (stack.length > 0 && found.length < 500) {
    const current = stack.pop();
    if (typeof current !== "object" || current === null || found.includes(current as unknown[])) continue;
    if (!Array.isArray(current) && Object.getPrototypeOf(current) !== Object.prototype) continue;
    let descriptors: PropertyDescriptor[];
    try {
      descriptors = Object.values(Object.getOwnPropertyDescriptors(current));
    } catch {
      continue;
    }
    if (descriptors.some((descriptor) => !("value" in descriptor) || !descriptor.configurable)) {
      if (!Array.isArray(current)) continue;
    }
    found.push(current as Record<string, unknown>);
    if (Array.isArray(current) && current.length > 1000) continue;
    for (const descriptor of descriptors) if ("value" in descriptor) stack.push(descriptor.value);
  }
  return found;
}

type Mutation = {
  operation: "replace" | "delete" | "add-key" | "type" | "version";
  at: number;
  key: string;
  value: [string, unknown];
};

function mutate(document: unknown, mutations: Mutation[]): string[] {
  const applied: string[] = [];
  for (const mutation of mutations) {
    const targets = containers(document);
    const target = targets[mutation.at % targets.length];
    if (!target || (Array.isArray(target) === false && typeof target !== "object")) continue;
    const keys = Object.keys(target);
    const key = keys.length > 0 ? (keys[mutation.at % keys.length] as string) : mutation.key;
    if (mutation.operation === "replace") {
      if (Array.isArray(target)) target[Number(key) || 0] = mutation.value[1];
      else setOwn(target, key, mutation.value[1]);
      applied.push(mutation.value[0]);
    } else if (mutation.operation === "delete") {
      if (Array.isArray(target)) target.splice(Number(key) || 0, 1);
      else delete target[key];
      applied.push("delete");
    } else if (mutation.operation === "add-key" && !Array.isArray(target)) {
      setOwn(target, mutation.key, mutation.value[1]);
      applied.push(`key:${mutation.key}`);
    } else if (mutation.operation === "type" && !Array.isArray(target)) {
      setOwn(target, "$type", TYPES[mutation.at % TYPES.length]);
      applied.push("type");
    } else if (mutation.operation === "version" && !Array.isArray(target)) {
      setOwn(target, "$v", [0, -1, 1.5, 2, 99, "1", 1e308, null][mutation.at % 8]);
      applied.push("version");
    }
  }
  return applied;
}

/** Documents: generated from nothing, or valid states mutated 1–4 times. */
export function hostileDocuments(options: { json: boolean }): fc.Arbitrary<HostileDocument> {
  const value = options.json
    ? hostileJsonValues(3_000)
    : fc.oneof({ weight: 6, arbitrary: hostileJsonValues(100_000) }, { weight: 1, arbitrary: nonJsonValue });
  const mutation = fc.record({
    operation: fc.constantFrom(
      "replace",
      "replace",
      "replace",
      "delete",
      "add-key",
      "type",
      "version",
    ) as fc.Arbitrary<Mutation["operation"]>,
    at: fc.nat(),
    key: fc.constantFrom(...HOSTILE_KEYS),
    value,
  });
  const mutated = fc
    .tuple(validStates, fc.array(mutation, { minLength: 1, maxLength: 4 }))
    .map(([seed, mutations]) => {
      const applied = mutate(seed.value, mutations);
      return { kind: `mutated:${seed.kind}:${applied.join("+")}`, value: seed.value };
    });
  const generated = fc.oneof(
    value.map(([kind, generatedValue]) => ({ kind: `generated:${kind}`, value: generatedValue })),
    fc
      .record(
        { $type: fc.constantFrom(...TYPES), id: value, $v: fc.oneof(fc.constant(1), value) },
        { requiredKeys: ["$type"] },
      )
      .map((record) => ({
        kind: "generated:typed",
        value: Object.fromEntries(
          Object.entries(record).map(([key, entry]) => [
            key,
            Array.isArray(entry) && entry.length === 2 && typeof entry[0] === "string" ? entry[1] : entry,
          ]),
        ),
      })),
  );
  return fc.oneof({ weight: 7, arbitrary: mutated }, { weight: 3, arbitrary: generated });
}

/** The own property names of the built-in prototypes, to compare before and after hostile input. */
export function prototypeFingerprint(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype]
    .map((prototype) => Object.getOwnPropertyNames(prototype).sort().join(","))
    .join("|");
}

/** Whether anything reachable from a fresh object was added by hostile input. */
export function polluted(): boolean {
  const probe = {} as Record<string, unknown>;
  return (
    probe.polluted !== undefined || probe.$type !== undefined || probe.id !== undefined || [].length !== 0
  );
}

/** A file as the CLI would read it: text or raw bytes. */
export interface HostileFile {
  kind: string;
  content: string | Uint8Array;
}

/** What people and broken tools hand to `skein import`: documents, and text that is barely JSON or not at all. */
export function hostileFiles(): fc.Arbitrary<HostileFile> {
  const document = hostileDocuments({ json: true });
  const text = (value: unknown) => JSON.stringify(value) ?? "null";
  return fc.oneof(
    { weight: 12, arbitrary: document.map((item) => ({ kind: item.kind, content: text(item.value) })) },
    {
      weight: 2,
      arbitrary: fc.array(document, { minLength: 2, maxLength: 5 }).map((items) => ({
        kind: "json-lines",
        content: items.map((item) => text(item.value)).join("\n"),
      })),
    },
    {
      weight: 1,
      arbitrary: fc.array(document, { minLength: 1, maxLength: 4 }).map((items) => ({
        kind: "json-array",
        content: text(items.map((item) => item.value)),
      })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(document, fc.double({ min: 0, max: 1, noNaN: true })).map(([item, cut]) => {
        const whole = text(item.value);
        return { kind: "truncated", content: whole.slice(0, Math.floor(whole.length * cut)) };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          "",
          "   \n\t ",
          "\uFEFF",
          "null",
          "[]",
          "[[[[",
          '{"$type":"memory","id":"a","revision":1e999999}',
          '{"$type":"memory","id":"a","id":"b","$type":"fs"}',
          '{"$type":"memory","id":"a\\u0000b"}',
          '{"__proto__":{"polluted":true},"$type":"memory","id":"p"}',
          '{"constructor":{"prototype":{"polluted":true}},"$type":"memory","id":"c"}',
          `${"[".repeat(200_000)}${"]".repeat(200_000)}`,
          `{"$type":"memory","id":"${"\\ud800".repeat(1000)}"}`,
        )
        .map((content) => ({ kind: "text", content })),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string({ maxLength: 200 }).map((content) => ({ kind: "garbage-text", content })),
        fc.uint8Array({ maxLength: 400 }).map((content) => ({ kind: "garbage-bytes", content })),
        document.map((item) => ({ kind: "bom", content: `\uFEFF${text(item.value)}` })),
      ),
    },
  );
}
