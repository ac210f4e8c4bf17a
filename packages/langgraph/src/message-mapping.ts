import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  type MessageContent,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { Content, JsonValue, Message, MessageInput } from "@skein/thread-core";
import { describeValue } from "./describe-value.js";
import { MessageMappingError } from "./errors.js";

/**
 * What a LangChain message has that skein's message has no field for, kept under `metadata.langchain` so the
 * way back is exact: whether the content was an array, the kwargs, invalid tool calls, a tool's status and
 * artifact.
 */
interface LangChainExtra {
  content?: "blocks";
  additional_kwargs?: JsonValue;
  response_metadata?: JsonValue;
  invalid_tool_calls?: JsonValue;
  usage_metadata?: JsonValue;
  status?: string;
  artifact?: JsonValue;
}

/** LangChain content blocks whose type skein defines differently go under this namespace, so neither side misreads them. */
const BLOCK_PREFIX = "langchain.";

const ROLES: Record<string, Message["role"]> = {
  human: "user",
  ai: "assistant",
  tool: "tool",
  system: "system",
};

type Json = Record<string, JsonValue>;

/** The fields every LangChain message constructor takes. */
interface CommonFields {
  id?: string;
  name?: string;
  additional_kwargs?: Json;
  response_metadata?: Json;
}

function isEmpty(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === "object" && Object.keys(value).length === 0)
  );
}

/** Drops `undefined` fields, which JSON cannot carry and LangChain leaves on optional properties. */
function json(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

function blockToContent(block: unknown): Content {
  const { type, ...rest } = block as { type: string } & Json;
  if (type === "text" && typeof rest.text === "string") return json(block) as Content;
  return { type: BLOCK_PREFIX + type, ...(json(rest) as Json) } as Content;
}

function contentToBlock(content: Content): Json {
  const { type, ...rest } = content as { type: string } & Json;
  if (type.startsWith(BLOCK_PREFIX)) return { type: type.slice(BLOCK_PREFIX.length), ...rest };
  if (type === "reasoning") return { type: "reasoning", reasoning: (rest as { text: string }).text };
  return content as Json;
}

function contentsOf(content: MessageContent, extra: LangChainExtra): Content[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  extra.content = "blocks";
  return (content as unknown[]).map(blockToContent);
}

function toolCallContents(message: AIMessage): Content[] {
  return (message.tool_calls ?? []).map((call) => {
    if (typeof call.id !== "string" || call.id === "") {
      throw new MessageMappingError(
        `Tool call ${JSON.stringify(call.name)} has no id; skein's function_call needs one to pair it with its result.`,
      );
    }
    const { id, name, args, ...rest } = call;
    return {
      type: "function_call",
      callId: id,
      name,
      arguments: json(args) as Json,
      ...(isEmpty(rest) ? {} : { langchain: json(rest) }),
    } as Content;
  });
}

/** Usage as skein's `usage` content where its counts fit, with LangChain's details kept beside them. */
function usageContents(message: AIMessage, extra: LangChainExtra): Content[] {
  const usage = message.usage_metadata;
  if (!usage) return [];
  const { input_tokens, output_tokens, total_tokens, ...rest } = usage;
  const counts = [input_tokens, output_tokens, total_tokens];
  if (!counts.every((count) => Number.isInteger(count) && count >= 0)) {
    extra.usage_metadata = json(usage);
    return [];
  }
  return [
    {
      type: "usage",
      inputTokens: input_tokens,
      outputTokens: output_tokens,
      totalTokens: total_tokens,
      ...(isEmpty(rest) ? {} : { langchain: json(rest) }),
    } as Content,
  ];
}

function fromOne(message: BaseMessage): MessageInput {
  const type = message.getType();
  const role = ROLES[type];
  if (!role) {
    throw new MessageMappingError(
      `A LangChain ${type} message has no skein role; map human, ai, tool and system messages.`,
    );
  }
  const extra: LangChainExtra = {};
  let contents: Content[];
  if (type === "tool") {
    const tool = message as ToolMessage;
    contents = [
      {
        type: "function_result",
        callId: tool.tool_call_id,
        result: json(tool.content),
        ...(tool.status === "error" ? { isError: true } : {}),
      } as Content,
    ];
    if (tool.status !== undefined) extra.status = tool.status;
    if (tool.artifact !== undefined) extra.artifact = json(tool.artifact);
  } else {
    contents = contentsOf(message.content, extra);
    if (type === "ai") {
      const ai = message as AIMessage;
      contents.push(...toolCallContents(ai), ...usageContents(ai, extra));
      if (!isEmpty(ai.invalid_tool_calls)) extra.invalid_tool_calls = json(ai.invalid_tool_calls);
    }
  }
  if (!isEmpty(message.additional_kwargs)) extra.additional_kwargs = json(message.additional_kwargs);
  if (!isEmpty(message.response_metadata)) extra.response_metadata = json(message.response_metadata);
  return {
    ...(typeof message.id === "string" && message.id !== "" ? { id: message.id } : {}),
    role,
    ...(typeof message.name === "string" && message.name !== "" ? { authorName: message.name } : {}),
    contents,
    ...(isEmpty(extra) ? {} : { metadata: { langchain: extra as unknown as JsonValue } }),
  };
}

/**
 * LangChain messages (human, ai with tool calls, tool, system) as skein messages, ready for `thread.append`:
 * the conversation of a graph becomes a skein thread every skein tool can read, view, fork and export.
 * `toLangChainMessages` gives them back deep-equal.
 * @example await thread.append(fromLangChainMessages(state.messages));
 */
export function fromLangChainMessages(messages: readonly BaseMessage[]): MessageInput[] {
  assertArray("fromLangChainMessages", "LangChain messages", messages);
  return messages.map((message, index) => {
    if (typeof (message as Partial<BaseMessage> | null)?.getType !== "function") {
      // A plain { role, content } is what a chat model takes, but it carries no LangChain type to map from.
      throw new MessageMappingError(
        `fromLangChainMessages takes LangChain message objects (new HumanMessage(…), or coerceMessageLikeToMessage from @langchain/core/messages for { role, content }); item ${index} is ${typeof message === "object" && message !== null ? "a plain object (no getType())" : describeValue(message)}.`,
      );
    }
    return fromOne(message);
  });
}

/** A mapping's argument is an array: one message, or nothing, is refused with what was meant. */
function assertArray(call: string, what: string, value: unknown): void {
  if (!Array.isArray(value)) {
    throw new MessageMappingError(`${call} takes an array of ${what}, not ${describeValue(value)}.`);
  }
}

function contentsOfInput(message: Message | MessageInput): Content[] {
  return "contents" in message ? (message.contents as Content[]) : [{ type: "text", text: message.text }];
}

function lcContent(contents: Content[], extra: LangChainExtra): MessageContent {
  const texts = contents.filter((content) => content.type === "text") as Array<{ text: string }>;
  if (extra.content !== "blocks" && texts.length === contents.length && texts.length <= 1) {
    return texts[0]?.text ?? "";
  }
  return contents.map(contentToBlock) as MessageContent;
}

function toOne(message: Message | MessageInput): BaseMessage[] {
  const extra = ((message.metadata as Json | undefined)?.langchain ?? {}) as LangChainExtra;
  const all = contentsOfInput(message);
  const common: CommonFields = {
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(typeof message.authorName === "string" ? { name: message.authorName } : {}),
    ...(extra.additional_kwargs === undefined ? {} : { additional_kwargs: extra.additional_kwargs as Json }),
    ...(extra.response_metadata === undefined ? {} : { response_metadata: extra.response_metadata as Json }),
  };
  switch (message.role) {
    case "user":
      return [new HumanMessage({ ...common, content: lcContent(all, extra) })];
    case "system":
      return [new SystemMessage({ ...common, content: lcContent(all, extra) })];
    case "assistant":
      return [assistantMessage(all, extra, common)];
    case "tool":
      return toolMessages(all, extra, common, message.id);
    default:
      throw new MessageMappingError(
        `A skein message with role ${JSON.stringify(message.role)} has no LangChain type.`,
      );
  }
}

function assistantMessage(all: Content[], extra: LangChainExtra, common: CommonFields): AIMessage {
  const calls = all.filter((content) => content.type === "function_call") as Array<
    Content & { callId: string; name: string; arguments: Json | string; langchain?: Json }
  >;
  const usage = all.find((content) => content.type === "usage") as
    | (Content & { inputTokens: number; outputTokens: number; totalTokens: number; langchain?: Json })
    | undefined;
  const rest = all.filter((content) => content.type !== "function_call" && content.type !== "usage");
  return new AIMessage({
    ...common,
    content: lcContent(rest, extra),
    tool_calls: calls.map((call) => ({
      ...(call.langchain ?? {}),
      id: call.callId,
      name: call.name,
      args: typeof call.arguments === "string" ? parseArguments(call.arguments) : call.arguments,
    })),
    ...(extra.invalid_tool_calls === undefined
      ? {}
      : { invalid_tool_calls: extra.invalid_tool_calls as never }),
    ...(usage
      ? {
          usage_metadata: {
            input_tokens: usage.inputTokens,
            output_tokens: usage.outputTokens,
            total_tokens: usage.totalTokens,
            ...(usage.langchain ?? {}),
          },
        }
      : extra.usage_metadata === undefined
        ? {}
        : { usage_metadata: extra.usage_metadata as never }),
  });
}

/** Skein allows arguments as a JSON string (as some providers send them); LangChain wants an object. */
function parseArguments(text: string): Json {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Json;
  } catch {
    // Not JSON: handed over as LangChain hands over arguments it could not parse.
  }
  return { input: text };
}

function toolMessages(
  all: Content[],
  extra: LangChainExtra,
  common: CommonFields,
  id: string | undefined,
): ToolMessage[] {
  const results = all.filter((content) => content.type === "function_result") as Array<
    Content & { callId: string; result: JsonValue; isError?: boolean }
  >;
  if (results.length === 0) {
    throw new MessageMappingError(
      `Tool message ${JSON.stringify(id ?? "")} has no function_result content; LangChain's ToolMessage needs a tool_call_id.`,
    );
  }
  return results.map((result, index) => {
    const content =
      typeof result.result === "string" || Array.isArray(result.result)
        ? (result.result as MessageContent)
        : JSON.stringify(result.result);
    const status = extra.status ?? (result.isError ? "error" : undefined);
    return new ToolMessage({
      ...common,
      // One LangChain tool message per result; the first keeps the skein id, the others are told apart.
      ...(id !== undefined && index > 0 ? { id: `${id}#${index}` } : {}),
      content,
      tool_call_id: result.callId,
      ...(status === undefined ? {} : { status: status as "success" | "error" }),
      ...(extra.artifact === undefined ? {} : { artifact: extra.artifact }),
    });
  });
}

/**
 * Skein messages as LangChain messages: user → HumanMessage, assistant → AIMessage (function calls as
 * tool calls, usage as usage metadata), tool → one ToolMessage per function result, system → SystemMessage.
 * A skein thread can seed a graph: `graph.invoke({ messages: toLangChainMessages(await thread.messages()) })`.
 */
export function toLangChainMessages(messages: ReadonlyArray<Message | MessageInput>): BaseMessage[] {
  assertArray("toLangChainMessages", "skein messages (await thread.messages())", messages);
  return messages.flatMap((message, index) => {
    const shaped =
      typeof message === "object" &&
      message !== null &&
      ("contents" in message ? Array.isArray(message.contents) : typeof message.text === "string");
    if (!shaped) {
      throw new MessageMappingError(
        `toLangChainMessages takes skein messages (with contents, or the { role, text } shorthand); item ${index} is ${typeof message === "object" && message !== null ? "an object with neither" : describeValue(message)}.`,
      );
    }
    return toOne(message);
  });
}
