import { useEffect, useMemo, useState } from "preact/hooks";
import type { ContextView } from "../api-types.js";
import { errorText, getJson } from "./api-client.js";
import { MessageWindow } from "./message-window.js";
import type { ThreadRef } from "./thread-ref.js";

/** What `view({ maxTokens, keepSystem })` would send to a model: kept messages as they are, the rest greyed. */
export function ContextPanel({ thread, version }: { thread: ThreadRef; version?: string }) {
  const [budget, setBudget] = useState(2000);
  const [keepSystem, setKeepSystem] = useState(true);
  const [view, setView] = useState<ContextView | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      getJson<ContextView>("/api/view", { ...thread, maxTokens: budget, keepSystem })
        .then((result) => {
          if (!current) return;
          setView(result);
          setError(undefined);
        })
        .catch((caught) => current && setError(errorText(caught)));
    }, 150);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [thread.id, thread.scope, thread.sub, budget, keepSystem, version]);

  const kept = useMemo(() => new Set(view?.keptIds ?? []), [view]);
  return (
    <section class="context">
      <div class="window-bar">
        <label>
          token budget
          <input
            type="range"
            min={50}
            max={32000}
            step={50}
            value={budget}
            onInput={(event) => setBudget(Number((event.target as HTMLInputElement).value))}
          />
          <input
            class="budget"
            name="maxTokens"
            type="number"
            min={1}
            value={budget}
            onChange={(event) => {
              const value = Number((event.target as HTMLInputElement).value);
              if (Number.isSafeInteger(value) && value > 0) setBudget(value);
            }}
          />
        </label>
        <label>
          <input type="checkbox" checked={keepSystem} onChange={() => setKeepSystem(!keepSystem)} /> keep
          system messages
        </label>
        {view ? (
          <span class="context-summary">
            sends {view.keptIds.length} of {view.length} messages, about {view.tokens} tokens
          </span>
        ) : null}
      </div>
      {error ? <div class="error-banner">{error}</div> : null}
      <p class="muted">
        Greyed messages are dropped. A tool call and its result are kept or dropped together. Tokens are
        estimated at about four characters each.
      </p>
      {view ? <MessageWindow thread={thread} version={version} kept={kept} /> : null}
    </section>
  );
}
