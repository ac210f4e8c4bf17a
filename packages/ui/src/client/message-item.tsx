import type { Content, Message } from "@skein/thread-core";
import type { VersionMark } from "../api-types.js";

/** Results found in the loaded messages, by call id, so a call shows its result beside it. */
export type ResultsByCall = ReadonlyMap<string, Content>;

/** Image types a data part may be shown as; anything else is described, not rendered. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface MessageItemProps {
  message: Message;
  position: number;
  results: ResultsByCall;
  calls: ReadonlySet<string>;
  dropped?: boolean;
  /** The message has other versions: which is shown, of how many. */
  versions?: VersionMark | undefined;
  /** Show version `index` (its branch) instead. */
  onFlip?: (index: number) => void;
}

/** One message as a chat bubble: role, author, time, then each content. Every string is rendered as text. */
export function MessageItem({
  message,
  position,
  results,
  calls,
  dropped,
  versions,
  onFlip,
}: MessageItemProps) {
  return (
    <article
      class={`message role-${message.role}${dropped ? " dropped" : ""}`}
      data-position={position}
      data-id={message.id}
    >
      <header>
        <span class="position">#{position + 1}</span>
        <span class="role">{message.role}</span>
        {message.authorName ? <span class="author">{message.authorName}</span> : null}
        <time>{message.createdAt.replace("T", " ").slice(0, 19)}</time>
        {dropped ? <span class="dropped-note">not sent</span> : null}
        {message.status === "streaming" || message.status === "interrupted" ? (
          <span class={`message-status status-${message.status}`}>{message.status}</span>
        ) : null}
        {versions ? <VersionSwitch versions={versions} onFlip={onFlip} /> : null}
      </header>
      {message.contents.map((content, index) => (
        <ContentView key={index} content={content} results={results} calls={calls} />
      ))}
    </article>
  );
}

/** "< i / n >": the version shown among the message's versions, and buttons to show the one before or after. */
function VersionSwitch({
  versions,
  onFlip,
}: {
  versions: VersionMark;
  onFlip?: ((index: number) => void) | undefined;
}) {
  const { index, count } = versions;
  return (
    <span class={index === versions.current ? "versions" : "versions other"}>
      <button
        type="button"
        aria-label="previous version"
        disabled={!onFlip || index === 0}
        onClick={() => onFlip?.(index - 1)}
      >
        {"<"}
      </button>{" "}
      <span class="version-count">
        {index + 1} / {count}
      </span>{" "}
      <button
        type="button"
        aria-label="next version"
        disabled={!onFlip || index === count - 1}
        onClick={() => onFlip?.(index + 1)}
      >
        {">"}
      </button>
    </span>
  );
}

function ContentView({
  content,
  results,
  calls,
}: {
  content: Content;
  results: ResultsByCall;
  calls: ReadonlySet<string>;
}) {
  switch (content.type) {
    case "text":
      return <div class="text">{String(content.text)}</div>;
    case "reasoning":
      return (
        <details class="reasoning">
          <summary>reasoning</summary>
          <div class="text">{String(content.text)}</div>
        </details>
      );
    case "function_call": {
      const result = results.get(String(content.callId));
      return (
        <div class="tool-call">
          <div class="tool-half">
            <div class="tool-title">
              call <b>{String(content.name)}</b> <code>{String(content.callId)}</code>
            </div>
            <pre>{pretty(content.arguments)}</pre>
          </div>
          <div class="tool-half">
            <div class="tool-title">result</div>
            {result ? <ResultBody content={result} /> : <div class="muted">not in the loaded messages</div>}
          </div>
        </div>
      );
    }
    case "function_result":
      return calls.has(String(content.callId)) ? (
        <div class="muted tool-ref">
          result of <code>{String(content.callId)}</code>, shown beside its call
        </div>
      ) : (
        <div class="tool-call single">
          <div class="tool-title">
            result of <code>{String(content.callId)}</code>
          </div>
          <ResultBody content={content} />
        </div>
      );
    case "data":
      return <DataPart mediaType={String(content.mediaType)} data={String(content.data)} />;
    case "uri":
      return (
        <div class="part">
          link <code class="uri">{String(content.uri)}</code>
          {content.mediaType ? <span class="muted"> {String(content.mediaType)}</span> : null}
        </div>
      );
    case "file":
      return (
        <div class="part">
          file <b>{String(content.name ?? content.fileId)}</b> <code>{String(content.fileId)}</code>
          {content.mediaType ? <span class="muted"> {String(content.mediaType)}</span> : null}
        </div>
      );
    case "usage":
      return <div class="usage">usage {usageText(content)}</div>;
    case "error":
      return (
        <div class="error-part">
          error{content.code ? ` ${String(content.code)}` : ""}: {String(content.message)}
        </div>
      );
    default:
      return (
        <div class="part">
          <span class="muted">{String((content as { type: unknown }).type)}</span>
          <pre>{pretty(content)}</pre>
        </div>
      );
  }
}

function ResultBody({ content }: { content: Content }) {
  const failed = (content as { isError?: unknown }).isError === true;
  return <pre class={failed ? "failed" : ""}>{pretty((content as { result?: unknown }).result)}</pre>;
}

function DataPart({ mediaType, data }: { mediaType: string; data: string }) {
  const bytes = Math.floor((data.length * 3) / 4);
  if (IMAGE_TYPES.has(mediaType) && BASE64.test(data))
    return (
      <img class="data-image" alt={`${mediaType}, ${bytes} bytes`} src={`data:${mediaType};base64,${data}`} />
    );
  return (
    <div class="part">
      data <span class="muted">{mediaType}</span>, {bytes} bytes
    </div>
  );
}

function usageText(content: Content): string {
  const { type: _type, ...counts } = content as Record<string, unknown>;
  return Object.entries(counts)
    .map(([name, value]) => `${name} ${typeof value === "object" ? JSON.stringify(value) : String(value)}`)
    .join(" · ");
}

function pretty(value: unknown): string {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** The call ids and results present among loaded messages. */
export function pairCalls(messages: readonly Message[]): {
  results: Map<string, Content>;
  calls: Set<string>;
} {
  const results = new Map<string, Content>();
  const calls = new Set<string>();
  for (const message of messages) {
    for (const content of message.contents) {
      if (content.type === "function_result") results.set(String(content.callId), content);
      if (content.type === "function_call") calls.add(String(content.callId));
    }
  }
  return { results, calls };
}
