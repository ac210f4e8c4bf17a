import { AGENT_SCRIPTS, type AgentStep, type AgentTurn } from "./agent-scripts.js";
import { listPage, type Route, ServiceFailure } from "./emulator-http.js";
import type { IdSource } from "./id-source.js";

type Json = Record<string, unknown>;
type Item = Json & { id: string; type: string };

interface ConversationRecord {
  id: string;
  object: "conversation";
  created_at: number;
  metadata: Json;
}

const MAX_ITEMS_PER_REQUEST = 20;
const USER_PARTS = new Set(["input_text", "input_image", "input_file"]);
const ASSISTANT_PARTS = new Set(["output_text", "refusal"]);

/**
 * The OpenAI-compatible side of a Foundry project (`<project>/openai/v1`): conversations, their items
 * (paged with `limit`, `order`, `after`), and responses that run an agent named by `agent_reference`.
 */
export class ConversationsService {
  readonly conversations = new Map<string, { conversation: ConversationRecord; items: Item[] }>();

  constructor(private readonly ids: IdSource) {}

  routes(): Route[] {
    return [
      { method: "POST", pattern: /^\/conversations$/, handler: (request) => this.#create(request.body) },
      {
        method: "GET",
        pattern: /^\/conversations\/([^/]+)$/,
        handler: (_, [id]) => this.#entry(id).conversation,
      },
      {
        method: "DELETE",
        pattern: /^\/conversations\/([^/]+)$/,
        handler: (_, [id]) => this.#delete(id as string),
      },
      {
        method: "POST",
        pattern: /^\/conversations\/([^/]+)\/items$/,
        handler: (request, [id]) => this.#addItems(id as string, request.body.items),
      },
      {
        method: "GET",
        pattern: /^\/conversations\/([^/]+)\/items$/,
        handler: (request, [id]) => listPage(this.#entry(id).items, request.query),
      },
      {
        method: "GET",
        pattern: /^\/conversations\/([^/]+)\/items\/([^/]+)$/,
        handler: (_, [id, itemId]) => this.#item(id, itemId),
      },
      { method: "POST", pattern: /^\/responses$/, handler: (request) => this.#respond(request.body) },
    ];
  }

  #create(body: Json): ConversationRecord {
    const conversation: ConversationRecord = {
      id: this.ids.next("conv"),
      object: "conversation",
      created_at: this.ids.now(),
      metadata: (body.metadata as Json | undefined) ?? {},
    };
    this.conversations.set(conversation.id, { conversation, items: [] });
    if (body.items !== undefined) this.#addItems(conversation.id, body.items);
    return conversation;
  }

  #delete(id: string): Json {
    this.#entry(id);
    this.conversations.delete(id);
    return { id, object: "conversation.deleted", deleted: true };
  }

  #entry(id: string | undefined) {
    const entry = this.conversations.get(id ?? "");
    if (!entry)
      throw new ServiceFailure(404, `Conversation with id '${id}' not found.`, { code: "not_found" });
    return entry;
  }

  #item(id: string | undefined, itemId: string | undefined): Item {
    const item = this.#entry(id).items.find((candidate) => candidate.id === itemId);
    if (!item) throw new ServiceFailure(404, `Item with id '${itemId}' not found.`, { code: "not_found" });
    return item;
  }

  #addItems(id: string, input: unknown) {
    const entry = this.#entry(id);
    if (!Array.isArray(input) || input.length === 0)
      throw new ServiceFailure(400, "items must be a non-empty array.", { param: "items" });
    if (input.length > MAX_ITEMS_PER_REQUEST) {
      throw new ServiceFailure(400, `At most ${MAX_ITEMS_PER_REQUEST} items per request.`, {
        param: "items",
      });
    }
    const items = (input as Json[]).map((item) => this.#stored(item));
    entry.items.push(...items);
    return {
      object: "list",
      data: items,
      first_id: items[0]?.id,
      last_id: items.at(-1)?.id,
      has_more: false,
    };
  }

  /** An input item as the service stores it: an id, a status, and message content as typed parts. */
  #stored(item: Json): Item {
    const type = typeof item.type === "string" ? item.type : "message";
    if (type === "message")
      return { id: this.ids.next("msg"), type, status: "completed", role: item.role, content: partsOf(item) };
    if (type === "function_call") {
      requireFields(item, ["call_id", "name", "arguments"]);
      return {
        id: this.ids.next("fc"),
        type,
        status: "completed",
        call_id: item.call_id,
        name: item.name,
        arguments: item.arguments,
      };
    }
    if (type === "function_call_output") {
      requireFields(item, ["call_id", "output"]);
      return {
        id: this.ids.next("fco"),
        type,
        status: "completed",
        call_id: item.call_id,
        output: item.output,
      };
    }
    if (typeof item.id !== "string")
      throw new ServiceFailure(400, `Items of type '${type}' need their id.`, { param: "items" });
    return { ...item, id: item.id, type };
  }

  #respond(body: Json): Json {
    const agent = body.agent_reference as Json | undefined;
    if (agent?.type !== "agent_reference" || typeof agent.name !== "string") {
      throw new ServiceFailure(400, "agent_reference { type: 'agent_reference', name } is required.", {
        param: "agent_reference",
      });
    }
    const script = AGENT_SCRIPTS[agent.name];
    if (!script) throw new ServiceFailure(404, `Agent '${agent.name}' not found.`, { code: "not_found" });
    const conversationId =
      typeof body.conversation === "string" ? body.conversation : (body.conversation as Json | undefined)?.id;
    const entry = conversationId === undefined ? undefined : this.#entry(String(conversationId));
    const input =
      body.input === undefined
        ? []
        : typeof body.input === "string"
          ? [{ role: "user", content: body.input }]
          : (body.input as Json[]);
    const inputItems = input.map((item) => this.#stored(item));
    entry?.items.push(...inputItems);
    const step = script(turnOf(entry?.items ?? inputItems));
    const { status, output, extra } = this.#outcome(step);
    if (entry && (status === "completed" || status === "incomplete")) entry.items.push(...output);
    return {
      id: this.ids.next("resp"),
      object: "response",
      created_at: this.ids.now(),
      status,
      error: null,
      incomplete_details: null,
      model: "emulated-deployment",
      output,
      parallel_tool_calls: true,
      tool_choice: "auto",
      tools: [],
      usage: { input_tokens: 12, output_tokens: 5, total_tokens: 17 },
      agent_reference: agent,
      conversation: entry ? { id: entry.conversation.id } : null,
      ...extra,
    };
  }

  #outcome(step: AgentStep): { status: string; output: Item[]; extra: Json } {
    const message = (text: string): Item => ({
      id: this.ids.next("msg"),
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
    });
    switch (step.kind) {
      case "reply":
        return { status: "completed", output: [message(step.text)], extra: {} };
      case "tools": {
        const output = step.calls.map((call) => ({
          id: this.ids.next("fc"),
          type: "function_call",
          status: "completed",
          call_id: this.ids.next("call"),
          name: call.name,
          arguments: JSON.stringify(call.arguments),
        }));
        return { status: "completed", output, extra: {} };
      }
      case "incomplete":
        return {
          status: "incomplete",
          output: [message(step.text)],
          extra: { incomplete_details: { reason: step.reason } },
        };
      case "fail":
        return { status: "failed", output: [], extra: { error: { code: step.code, message: step.message } } };
      case "cancel":
        return { status: "cancelled", output: [], extra: {} };
      case "wait":
        return { status: "in_progress", output: [], extra: {} };
      default:
        return {
          status: "failed",
          output: [],
          extra: { error: { code: "expired", message: "The response expired." } },
        };
    }
  }
}

function requireFields(item: Json, fields: string[]): void {
  for (const field of fields) {
    if (typeof item[field] !== "string")
      throw new ServiceFailure(400, `${String(item.type)} items need a string ${field}.`, { param: "items" });
  }
}

function partsOf(item: Json): Json[] {
  const role = item.role;
  if (role !== "user" && role !== "assistant" && role !== "system" && role !== "developer") {
    throw new ServiceFailure(400, `Invalid message role '${String(role)}'.`, { param: "role" });
  }
  if (typeof item.content === "string") {
    return [
      role === "assistant"
        ? { type: "output_text", text: item.content, annotations: [] }
        : { type: "input_text", text: item.content },
    ];
  }
  if (!Array.isArray(item.content))
    throw new ServiceFailure(400, "content must be a string or an array of parts.", { param: "content" });
  const allowed = role === "assistant" ? ASSISTANT_PARTS : USER_PARTS;
  for (const part of item.content as Json[]) {
    if (!allowed.has(String(part.type))) {
      throw new ServiceFailure(400, `Invalid value: '${String(part.type)}' in a ${role} message.`, {
        param: "content",
      });
    }
  }
  return item.content as Json[];
}

/** The newest user text, and the function outputs given after it (a tool round's results). */
function turnOf(items: Item[]): AgentTurn {
  const lastUser = items.findLastIndex((item) => item.type === "message" && item.role === "user");
  const parts = (items[lastUser]?.content as Json[] | undefined) ?? [];
  const text = parts.find((part) => part.type === "input_text")?.text;
  const toolOutputs = items
    .slice(lastUser + 1)
    .filter((item) => item.type === "function_call_output")
    .map((item) => ({ callId: String(item.call_id), output: String(item.output) }));
  return { lastUserText: typeof text === "string" ? text : "", toolOutputs };
}
