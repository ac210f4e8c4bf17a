import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { UiInfo } from "../api-types.js";
import { errorText, getJson } from "./api-client.js";
import { href, useRoute } from "./route.js";
import { ThreadPage } from "./thread-page.js";
import { listOrderOf, ThreadsList } from "./threads-list.js";

const TABS = ["messages", "history", "context", "workflow"] as const;

function App() {
  const route = useRoute();
  const [info, setInfo] = useState<UiInfo | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    getJson<UiInfo>("/api/info")
      .then(setInfo)
      .catch((caught) => setError(errorText(caught)));
  }, []);
  if (error) return <div class="error-banner">{error}</div>;
  if (!info) return <div class="muted">loading…</div>;
  const parameters = route.parameters;
  const id = parameters.get("id");
  const tabName = parameters.get("tab") ?? "messages";
  const tab = (TABS as readonly string[]).includes(tabName) ? (tabName as (typeof TABS)[number]) : "messages";
  return (
    <>
      <header class="top">
        <a class="brand" href={href("threads", { scope: parameters.get("scope") ?? undefined })}>
          skein
        </a>
        <span class="store">{info.storeUrl}</span>
        <span class={info.write ? "mode write" : "mode"}>{info.write ? "read-write" : "read-only"}</span>
      </header>
      <main>
        {route.view === "thread" && id ? (
          <ThreadPage
            key={`${id}\u0000${parameters.get("scope") ?? ""}\u0000${parameters.get("sub") ?? ""}`}
            thread={{
              id,
              ...(parameters.get("scope") ? { scope: parameters.get("scope") as string } : {}),
              ...(parameters.get("sub") ? { sub: parameters.get("sub") as string } : {}),
            }}
            tab={tab}
            info={info}
          />
        ) : (
          <ThreadsList
            key={["scope", "prefix", "owner", "order"]
              .map((name) => parameters.get(name) ?? "")
              .join("\u0000")}
            initial={{
              scope: parameters.get("scope") ?? "",
              prefix: parameters.get("prefix") ?? "",
              owner: parameters.get("owner") ?? "",
              order: listOrderOf(parameters.get("order")),
            }}
          />
        )}
      </main>
    </>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
