import { useEffect, useState } from "preact/hooks";
import type { ThreadListPage } from "../api-types.js";
import { errorText, getJson } from "./api-client.js";
import { href } from "./route.js";

const PAGE_SIZE = 50;

/** The store's threads, a page at a time (keyset cursors, never a full scan), by id prefix, in a scope. */
export function ThreadsList({
  initialScope,
  initialPrefix,
}: {
  initialScope: string;
  initialPrefix: string;
}) {
  const [scope, setScope] = useState(initialScope);
  const [prefix, setPrefix] = useState(initialPrefix);
  const [applied, setApplied] = useState({ scope: initialScope, prefix: initialPrefix });
  // Cursors of the pages before this one, so "previous" goes back without reading from the start.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<ThreadListPage | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const cursor = cursors[cursors.length - 1];

  useEffect(() => {
    let current = true;
    getJson<ThreadListPage>("/api/threads", {
      scope: applied.scope || undefined,
      prefix: applied.prefix || undefined,
      cursor,
      limit: PAGE_SIZE,
    })
      .then((result) => {
        if (!current) return;
        setPage(result);
        setError(undefined);
      })
      .catch((caught) => current && setError(errorText(caught)));
    return () => {
      current = false;
    };
  }, [applied, cursor]);

  return (
    <section class="threads">
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setCursors([undefined]);
          setApplied({ scope: scope.trim(), prefix });
          location.hash = href("threads", { scope: scope.trim(), prefix });
        }}
      >
        <label>
          id starts with
          <input
            name="prefix"
            value={prefix}
            onInput={(event) => setPrefix((event.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          scope
          <input
            name="scope"
            placeholder="(whole store)"
            value={scope}
            onInput={(event) => setScope((event.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">search</button>
      </form>
      {error ? <div class="error-banner">{error}</div> : null}
      <table class="thread-table">
        <thead>
          <tr>
            <th>id</th>
            <th>type</th>
            <th class="number">messages</th>
            <th>updated</th>
          </tr>
        </thead>
        <tbody>
          {page?.items.map((item) => (
            <tr key={item.id}>
              <td>
                <a class="thread-link" href={href("thread", { id: item.id, scope: applied.scope })}>
                  {item.id}
                </a>
              </td>
              <td>
                <span class={`type type-${item.type.replace(/[^a-z]/g, "")}`}>{item.type}</span>
              </td>
              <td class="number">{item.messageCount ?? "—"}</td>
              <td>{item.updatedAt.replace("T", " ").slice(0, 19)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page && page.items.length === 0 ? <div class="muted empty">no threads</div> : null}
      <div class="pager">
        <button type="button" disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
          previous
        </button>
        <span class="muted">page {cursors.length}</span>
        <button
          type="button"
          disabled={!page?.cursor}
          onClick={() => page?.cursor && setCursors([...cursors, page.cursor])}
        >
          next
        </button>
      </div>
    </section>
  );
}
