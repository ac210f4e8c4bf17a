import type { ModelMessage, UIMessage } from "ai";

// AI SDK 7 shapes, written as plain data: the installed ai 6 types have no custom, reasoning-file or
// steering-message part, so these are cast where they are used.

const png = Buffer.from("a tiny png").toString("base64");
const providerMetadata = { openai: { itemId: "item_7" } };
const approval = { id: "ap", requestReason: "writes to disk", isAutomatic: false };

const states = [
  { state: "input-streaming", input: { city: "Pa" } },
  { state: "input-available", input: { city: "Paris" } },
  { state: "approval-requested", input: { city: "Rome" }, approval },
  {
    state: "approval-responded",
    input: { city: "Oslo" },
    approval: { ...approval, approved: true, reason: "ok" },
  },
  {
    state: "output-available",
    input: { city: "Bern" },
    output: { celsius: 4 },
    approval: { ...approval, approved: true, isAutomatic: true },
  },
  {
    state: "output-error",
    input: { city: "?" },
    errorText: "no such city",
    approval: { ...approval, approved: true },
  },
  { state: "output-denied", input: { city: "/" }, approval: { ...approval, approved: false, reason: "no" } },
];

/** Every tool state, as a `tool-<name>` and a `dynamic-tool` part, with 7's approval `requestReason` / `isAutomatic`. */
const toolParts = states
  .flatMap((fields, index) => [
    {
      type: "tool-weather",
      toolCallId: `t-${index}`,
      ...structuredClone(fields),
      approval: named(fields, `t-${index}`),
    },
    {
      type: "dynamic-tool",
      toolName: "mcp_weather",
      toolCallId: `d-${index}`,
      ...structuredClone(fields),
      approval: named(fields, `d-${index}`),
    },
  ])
  .map((part) => (part.approval === undefined ? withoutApproval(part) : part));

function named(fields: { approval?: object }, id: string): object | undefined {
  return fields.approval && { ...fields.approval, id: `ap-${id}` };
}

function withoutApproval<T extends { approval?: unknown }>(part: T): Omit<T, "approval"> {
  const { approval: _approval, ...rest } = part;
  return rest;
}

/** A chat holding every part type AI SDK 7 adds or extends, and every tool state with 7's approval fields. */
export const everyAi7UIPart = [
  {
    id: "user-7",
    role: "user",
    parts: [
      { type: "text", text: "Summarize the report." },
      {
        type: "file",
        mediaType: "application/pdf",
        url: "https://example.com/report.pdf",
        filename: "report.pdf",
        providerReference: { openai: "file-abc", anthropic: "file_01" },
      },
    ],
  },
  {
    id: "assistant-7",
    role: "assistant",
    parts: [
      { type: "step-start" },
      {
        type: "reasoning-file",
        mediaType: "image/png",
        url: `data:image/png;base64,${png}`,
        providerMetadata,
      },
      { type: "custom", kind: "openai.compaction", providerMetadata },
      { type: "custom", kind: "anthropic.container" },
      {
        type: "text",
        text: "It grew.",
        state: "done",
        citations: [
          {
            source: {
              type: "source",
              sourceType: "url",
              id: "s-1",
              url: "https://example.com/a",
              title: "A",
            },
            startIndex: 0,
            endIndex: 8,
            citedText: "It grew.",
          },
          {
            source: {
              type: "source",
              sourceType: "document",
              id: "s-2",
              mediaType: "application/pdf",
              title: "Report",
              filename: "report.pdf",
            },
          },
        ],
      },
      {
        type: "steering-message",
        id: "steer-1",
        parts: [
          { type: "text", text: "Shorter, please.", providerMetadata },
          { type: "file", mediaType: "image/png", url: `data:image/png;base64,${png}`, filename: "hint.png" },
        ],
      },
      { type: "step-start" },
      ...toolParts,
      { type: "text", text: "Done." },
    ],
  },
] as unknown as UIMessage[];

/** Model messages with every part and file data shape AI SDK 7 adds: URL objects and bytes must come back as such. */
export const everyAi7ModelPart = [
  {
    role: "user",
    content: [
      {
        type: "file",
        mediaType: "application/pdf",
        data: { type: "url", url: new URL("https://example.com/r.pdf") },
      },
      {
        type: "file",
        mediaType: "application/pdf",
        data: {
          type: "url",
          url: new URL("https://cdn.example.com/r.pdf"),
          originalUrl: "https://example.com/r",
        },
      },
      { type: "file", mediaType: "image/png", data: { type: "data", data: new Uint8Array([1, 2, 3]) } },
      { type: "file", mediaType: "image/png", data: { type: "data", data: png }, filename: "tiny.png" },
      { type: "file", mediaType: "text/markdown", data: { type: "text", text: "# Notes\nnaïve ✓" } },
      {
        type: "file",
        mediaType: "application/pdf",
        data: { type: "reference", reference: { openai: "file-1" } },
      },
      { type: "file", mediaType: "application/pdf", data: { openai: "file-2", anthropic: "file_02" } },
      { type: "image", image: { openai: "file-img" }, mediaType: "image/png" },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "thinking" },
      { type: "reasoning-file", mediaType: "image/png", data: new URL("https://example.com/sketch.png") },
      {
        type: "reasoning-file",
        mediaType: "image/png",
        data: { type: "data", data: new Uint8Array([7, 7]) },
      },
      {
        type: "reasoning-file",
        mediaType: "image/png",
        data: png,
        providerOptions: { openai: { id: "r1" } },
      },
      { type: "custom", kind: "openai.compaction", providerOptions: { openai: { encrypted: "xyz" } } },
      { type: "custom", kind: "anthropic.container" },
      {
        type: "file",
        mediaType: "image/png",
        data: { type: "url", url: new URL("https://example.com/out.png") },
      },
      { type: "tool-call", toolCallId: "c1", toolName: "shot", input: { page: 1 } },
      {
        type: "tool-approval-request",
        approvalId: "a1",
        toolCallId: "c1",
        reason: "takes a screenshot",
        isAutomatic: true,
      },
    ],
  },
  {
    role: "tool",
    content: [
      { type: "tool-approval-response", approvalId: "a1", approved: true },
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "shot",
        output: {
          type: "content",
          value: [
            { type: "text", text: "see the files" },
            { type: "file", mediaType: "image/png", data: { type: "data", data: png } },
            { type: "file", mediaType: "image/png", data: { type: "data", data: new Uint8Array([4, 5]) } },
            {
              type: "file",
              mediaType: "application/pdf",
              filename: "r.pdf",
              data: { type: "url", url: new URL("https://example.com/r.pdf") },
              providerOptions: { openai: { detail: "low" } },
            },
            { type: "file", mediaType: "text/plain", data: { type: "text", text: "plain" } },
            {
              type: "file",
              mediaType: "image",
              data: { type: "reference", reference: { openai: "file-3" } },
            },
            { type: "file-reference", providerReference: { openai: "file-4" } },
            { type: "image-file-reference", providerReference: { anthropic: "file_05" } },
            { type: "file-url", url: "https://example.com/legacy.pdf" },
          ],
        },
      },
    ],
  },
] as unknown as ModelMessage[];
