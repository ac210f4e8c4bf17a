import { ServiceFailure } from "./http-answers.js";
import type { Item, ServiceState } from "./service-state.js";

const MESSAGE_ROLES = new Set(["user", "assistant", "system", "developer"]);
const ID_PREFIXES: Record<string, string> = {
  message: "msg",
  function_call: "fc",
  function_call_output: "fco",
  reasoning: "rs",
  configuration_update: "cu",
};

/**
 * Input as the service stores it: a string is one user message, a message's string content becomes a
 * text part, and every item gets an id and `status: "completed"`. Invalid items are a 400, as on the service.
 */
export function storeInput(state: ServiceState, input: unknown, existing: readonly Item[] = []): Item[] {
  if (input === undefined || input === null) return [];
  const list = typeof input === "string" ? [{ role: "user", content: input }] : input;
  if (!Array.isArray(list))
    throw new ServiceFailure(400, "Invalid type for 'input': expected a string or an array.", "input");
  const taken = new Set(existing.map((item) => item.id));
  return list.map((raw, index) => {
    const item = storedItem(state, raw as Record<string, unknown>, `input[${index}]`);
    if (taken.has(item.id))
      throw new ServiceFailure(400, `Duplicate item found with id ${item.id}.`, `input[${index}]`);
    taken.add(item.id);
    return item;
  });
}

function storedItem(state: ServiceState, raw: Record<string, unknown>, param: string): Item {
  if (raw === null || typeof raw !== "object")
    throw new ServiceFailure(400, `Invalid '${param}': expected an object.`, param);
  const type = typeof raw.type === "string" ? raw.type : "role" in raw ? "message" : undefined;
  if (!type) throw new ServiceFailure(400, `Missing required parameter: '${param}.type'.`, `${param}.type`);
  if (type === "item_reference") {
    const found = state.items.get(String(raw.id));
    if (!found) throw new ServiceFailure(404, `Item with id '${String(raw.id)}' not found.`, param);
    return structuredClone(found);
  }
  const id = typeof raw.id === "string" ? raw.id : state.newId(ID_PREFIXES[type] ?? "item");
  switch (type) {
    case "message":
      return { ...messageItem(raw, param), id, type, status: "completed" };
    case "function_call":
      requireStrings(raw, ["call_id", "name", "arguments"], param);
      return { ...raw, id, type, status: "completed" };
    case "function_call_output":
      requireStrings(raw, ["call_id"], param);
      if (raw.output === undefined)
        throw new ServiceFailure(400, `Missing required parameter: '${param}.output'.`, `${param}.output`);
      return { ...raw, id, type, status: "completed" };
    default:
      return { ...raw, id, type };
  }
}

function messageItem(raw: Record<string, unknown>, param: string): Record<string, unknown> {
  const role = String(raw.role);
  if (!MESSAGE_ROLES.has(role))
    throw new ServiceFailure(400, `Invalid value: '${role}'.`, `${param}.role`, "invalid_value");
  const textType = role === "assistant" ? "output_text" : "input_text";
  const content =
    typeof raw.content === "string"
      ? [{ type: textType, text: raw.content, ...(role === "assistant" ? { annotations: [] } : {}) }]
      : raw.content;
  if (!Array.isArray(content))
    throw new ServiceFailure(400, `Invalid '${param}.content'.`, `${param}.content`);
  return { ...raw, role, content };
}

function requireStrings(raw: Record<string, unknown>, fields: string[], param: string): void {
  for (const field of fields) {
    if (typeof raw[field] !== "string") {
      throw new ServiceFailure(400, `Missing required parameter: '${param}.${field}'.`, `${param}.${field}`);
    }
  }
}

/** The text of a message item's text parts. */
export function itemText(item: Item | undefined): string {
  if (item?.type !== "message" || !Array.isArray(item.content)) return "";
  return item.content
    .map((part) =>
      typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : "",
    )
    .join("");
}
