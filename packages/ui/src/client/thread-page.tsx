import { useEffect, useState } from "preact/hooks";
import type { ThreadInfo, UiInfo } from "../api-types.js";
import { errorText, getJson } from "./api-client.js";
import { ContextPanel } from "./context-panel.js";
import { HistoryGraph } from "./history-graph.js";
import { MessageWindow, type ThreadRef } from "./message-window.js";
import { href } from "./route.js";
import { TitleEditor } from "./title-editor.js";
import { useLiveSignature } from "./use-live.js";
import { WorkflowPanel } from "./workflow-panel.js";
import { WriteButtons } from "./write-buttons.js";

type Tab = "messages" | "history" | "context" | "workflow";

/** One thread: its facts, and tabs for the chat, the history graph, the context view and the workflow. */
export function ThreadPage({ thread, tab, info }: { thread: ThreadRef; tab: Tab; info: UiInfo }) {
  const [details, setDetails] = useState<ThreadInfo | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [reload, setReload] = useState(0);
  const signature = useLiveSignature(thread, details?.signature, info.pollInterval);

  useEffect(() => {
    let current = true;
    getJson<ThreadInfo>("/api/thread", { ...thread })
      .then((result) => {
        if (!current) return;
        setDetails(result);
        setError(undefined);
      })
      .catch((caught) => current && setError(errorText(caught)));
    return () => {
      current = false;
    };
  }, [thread.id, thread.scope, thread.sub, signature, reload]);

  if (error && !details) return <div class="error-banner">{error}</div>;
  if (!details) return <div class="muted">loading…</div>;
  // A workflow's own messages are its "main" sub-thread's; without one it has only its workflow view.
  const hasMessages = !details.workflow || details.workflow.threads.some((sub) => sub.key === "main");
  const tabs: Tab[] = hasMessages ? ["messages"] : [];
  if (details.capabilities.timeTravel && !details.workflow) tabs.push("history");
  if (details.capabilities.views && hasMessages) tabs.push("context");
  if (details.workflow) tabs.push("workflow");
  const shown = tabs.includes(tab) ? tab : (tabs[0] as Tab);
  const version = details.signature;
  const link = (name: Tab) =>
    href("thread", { id: thread.id, scope: thread.scope, sub: thread.sub, tab: name });
  return (
    <section class="thread">
      <header class="thread-header">
        <h2>
          {thread.sub ? (
            <>
              <a href={href("thread", { id: thread.id, scope: thread.scope, tab: "workflow" })}>
                {thread.id}
              </a>{" "}
              › {thread.sub}
            </>
          ) : (
            thread.id
          )}
        </h2>
        <span class="type">{details.type}</span>
        <span class="muted">
          {details.owner === undefined ? "" : `owner ${details.owner} · `}
          {details.length === null ? "" : `${details.length} messages · `}
          {details.revision === null ? "no revisions" : `revision ${details.revision}`}
          {thread.scope ? ` · scope ${thread.scope}` : ""}
        </span>
        <span class="live" title="updates when another process changes the thread">
          live
        </span>
        {info.write && details.capabilities.checkpoints && !thread.sub ? (
          <WriteButtons thread={thread} revision={details.revision} onWritten={() => setReload(reload + 1)} />
        ) : null}
      </header>
      {thread.sub ? null : (
        <TitleEditor
          thread={thread}
          title={details.title}
          revision={details.revision}
          editable={info.write && details.titleEditable}
          onWritten={() => setReload(reload + 1)}
        />
      )}
      {!details.capabilities.timeTravel ? (
        <p class="muted">
          A {details.type} thread keeps its messages in its service: its past (history, checkpoints, at)
          cannot be read here.
        </p>
      ) : null}
      {Object.keys(details.metadata).length > 0 ? (
        <details class="metadata">
          <summary>metadata</summary>
          <pre>{JSON.stringify(details.metadata, null, 2)}</pre>
        </details>
      ) : null}
      <nav class="tabs">
        {tabs.map((name) => (
          <a key={name} class={name === shown ? "tab active" : "tab"} href={link(name)}>
            {name}
          </a>
        ))}
      </nav>
      {shown === "messages" ? (
        <MessageWindow
          thread={thread}
          version={version}
          write={info.write}
          onWritten={() => setReload(reload + 1)}
        />
      ) : null}
      {shown === "history" ? (
        <HistoryGraph
          thread={thread}
          version={version}
          revision={details.revision}
          write={info.write}
          onWritten={() => setReload(reload + 1)}
        />
      ) : null}
      {shown === "context" ? <ContextPanel thread={thread} version={version} /> : null}
      {shown === "workflow" && details.workflow ? (
        <WorkflowPanel thread={thread} workflow={details.workflow} version={version} />
      ) : null}
    </section>
  );
}
