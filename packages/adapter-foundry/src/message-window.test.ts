import { type Message, PointNotFoundError } from "@skein/thread-core";
import { describe, expect, test } from "vitest";
import { type PagedMessages, type PageRequest, pagesOf, readWindow } from "./message-window.js";

/** An in-memory list with the services' paging rules, counting the pages asked for. */
function pagedList(count: number) {
  const messages: Message[] = Array.from({ length: count }, (_, index) => ({
    id: `m${String(index).padStart(4, "0")}`,
    role: "user",
    createdAt: "2026-01-01T00:00:00.000Z",
    contents: [{ type: "text", text: String(index) }],
  }));
  const requests: PageRequest[] = [];
  const source: PagedMessages = {
    async readPage(request) {
      requests.push(request);
      const ordered = request.order === "asc" ? messages : [...messages].reverse();
      const start =
        request.after === undefined ? 0 : ordered.findIndex((message) => message.id === request.after) + 1;
      return {
        messages: ordered.slice(start, start + request.limit),
        hasMore: start + request.limit < ordered.length,
      };
    },
    async assertPoint(messageId) {
      if (!messages.some((message) => message.id === messageId)) throw new PointNotFoundError("t", messageId);
    },
  };
  return { source, requests };
}

const numbers = (messages: Message[]) =>
  messages.map((message) => Number((message.contents[0] as { text: string }).text));

describe("readWindow", () => {
  test("reads everything oldest first in pages of 100", async () => {
    const { source, requests } = pagedList(250);
    expect(numbers(await readWindow(source))).toEqual(Array.from({ length: 250 }, (_, index) => index));
    expect(requests.map((request) => [request.order, request.after, request.limit])).toEqual([
      ["asc", undefined, 100],
      ["asc", "m0099", 100],
      ["asc", "m0199", 100],
    ]);
  });

  test("last k costs pages of k, not of the thread", async () => {
    const { source, requests } = pagedList(250);
    expect(numbers(await readWindow(source, { last: 3 }))).toEqual([247, 248, 249]);
    expect(requests).toEqual([{ order: "desc", after: undefined, limit: 3 }]);
  });

  test("combines after, last and limit as the Thread contract says", async () => {
    const { source } = pagedList(250);
    expect(numbers(await readWindow(source, { after: "m0010", limit: 2 }))).toEqual([11, 12]);
    expect(numbers(await readWindow(source, { after: "m0245", last: 10 }))).toEqual([246, 247, 248, 249]);
    expect(numbers(await readWindow(source, { last: 5, limit: 2 }))).toEqual([245, 246]);
    expect(await readWindow(source, { last: -1 })).toEqual([]);
    expect(await readWindow(source, { limit: 0 })).toEqual([]);
    await expect(readWindow(source, { after: "nope" })).rejects.toBeInstanceOf(PointNotFoundError);
  });

  test("pagesOf stops at a page limit", async () => {
    const { source } = pagedList(30);
    const pages: number[][] = [];
    for await (const page of pagesOf(source, { pageLimit: 25 })) pages.push(numbers(page));
    expect(pages.flat()).toHaveLength(25);
  });
});
