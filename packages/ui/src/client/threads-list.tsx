import { useEffect, useState } from "preact/hooks";
import type { ListOrder, ThreadListPage } from "../api-types.js";
import { errorText, getJson } from "./api-client.js";
import { href } from "./route.js";

const PAGE_SIZE = 50;

/** The list's orders as the page offers them; the first is the default (a sidebar's: newest first). */
export const LIST_ORDERS: ReadonlyArray<{ order: ListOrder; label: string }> = [
  { order: "updated", label: "last change, newest first" },
  { order: "created", label: "created, newest first" },
  { order: "id", label: "id" },
];

/** What the list shows: one owner's threads (or all), by id prefix, in a scope, in an order. */
export interface ListFilters {
  scope: string;
  prefix: string;
  owner: string;
  order: ListOrder;
}

/** A route's `order` parameter as an order of the list; anything else is the default. */
export function listOrderOf(text: string | null): ListOrder {
  return LIST_ORDERS.find((choice) => choice.order === text)?.order ?? "updated";
}

/**
 * The store's threads with their titles, a page at a time (keyset cursors, never a full scan), newest
 * first by default, of one owner if asked, by id prefix, in a scope.
 */
export function ThreadsList({ initial }: { initial: ListFilters }) {
  const [form, setForm] = useState(initial);
  const [applied, setApplied] = useState(initial);
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
      owner: applied.owner || undefined,
      order: applied.order,
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

  const field = (name: "prefix" | "owner" | "scope") => (event: Event) =>
    setForm({ ...form, [name]: (event.target as HTMLInputElement).value });
  /** Shows the list the form describes, from its first page, and keeps it in the address. */
  const apply = (filters: ListFilters) => {
    const next = { ...filters, scope: filters.scope.trim(), owner: filters.owner.trim() };
    setCursors([undefined]);
    setApplied(next);
    location.hash = href("threads", { ...next, order: next.order === "updated" ? "" : next.order });
  };
  return (
    <section class="threads">
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          apply(form);
        }}
      >
        <label>
          owner
          <input name="owner" placeholder="(every owner)" value={form.owner} onInput={field("owner")} />
        </label>
        <label>
          order
          <select
            name="order"
            value={form.order}
            onChange={(event) => {
              const next = { ...form, order: listOrderOf((event.target as HTMLSelectElement).value) };
              setForm(next);
              apply(next);
            }}
          >
            {LIST_ORDERS.map((choice) => (
              <option key={choice.order} value={choice.order}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          id starts with
          <input name="prefix" value={form.prefix} onInput={field("prefix")} />
        </label>
        <label>
          scope
          <input name="scope" placeholder="(whole store)" value={form.scope} onInput={field("scope")} />
        </label>
        <button type="submit">search</button>
      </form>
      {error ? <div class="error-banner">{error}</div> : null}
      <table class="thread-table">
        <thead>
          <tr>
            <th>title</th>
            <th>id</th>
            <th>owner</th>
            <th>type</th>
            <th class="number">messages</th>
            <th>updated</th>
          </tr>
        </thead>
        <tbody>
          {page?.items.map((item) => (
            <tr key={item.id}>
              <td class="title">{item.title ?? <span class="muted">—</span>}</td>
              <td>
                <a class="thread-link" href={href("thread", { id: item.id, scope: applied.scope })}>
                  {item.id}
                </a>
              </td>
              <td class="owner">{item.owner ?? ""}</td>
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
