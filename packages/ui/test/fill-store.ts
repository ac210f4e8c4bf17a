import type { Checkpoint, ThreadStore, WorkflowThread } from "@skein/thread-core";

/** Hostile content: each of these must show as text and nothing in it may run. */
export const XSS_TEXTS = [
  "<script>window.__skeinXss = 'script'</script>",
  "<img src=x onerror=\"window.__skeinXss = 'img'\">",
  "[click me](javascript:window.__skeinXss='markdown')",
];
export const XSS_URI = "javascript:window.__skeinXss='uri'";
export const XSS_ID = "<img src=x onerror=\"window.__skeinXss='id'\">";
export const XSS_TITLE = "<img src=x onerror=\"window.__skeinXss='title'\"> & <b>bold</b>";

/** A 1×1 PNG. */
const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** What the browser tests read: a support chat with a checkpoint, a fork and a rollback, and more. */
export async function fillStore(store: ThreadStore): Promise<{ checkpoint: Checkpoint }> {
  const thread = await store.create({
    id: "support-42",
    metadata: { user: "u-7" },
    owner: "u-7",
    title: "Lisbon weather",
  });
  await thread.append([
    { role: "system", text: "You are a helpful travel assistant. Answer briefly." },
    { role: "user", text: "Is it warm in Lisbon today?" },
    {
      role: "assistant",
      authorName: "planner",
      contents: [
        { type: "reasoning", text: "The user wants today's weather; call the weather tool." },
        { type: "function_call", callId: "call_1", name: "weather", arguments: { city: "Lisbon" } },
      ],
    },
    {
      role: "tool",
      contents: [{ type: "function_result", callId: "call_1", result: { celsius: 24, sky: "clear" } }],
    },
    {
      role: "assistant",
      authorName: "planner",
      contents: [
        { type: "text", text: "Yes: 24°C and clear." },
        { type: "usage", inputTokens: 412, outputTokens: 9 },
      ],
    },
  ]);
  const checkpoint = await thread.checkpoint("answered");
  await thread.append({ role: "user", text: "Book me a table by the river." });
  const fork = await thread.fork({ id: "support-42-booking" });
  await fork.append({ role: "assistant", text: "Booked: 20:00 at Cais do Sodré." });
  await thread.rollback(checkpoint);
  await thread.append([
    { role: "user", text: "And in Porto?" },
    {
      role: "assistant",
      contents: [{ type: "error", code: "rate_limited", message: "The weather service is busy." }],
    },
  ]);

  const hostile = await store.create({ id: "xss", title: XSS_TITLE });
  await hostile.append([
    ...XSS_TEXTS.map((text) => ({ role: "user" as const, text })),
    {
      role: "assistant",
      authorName: "<b>bold author</b>",
      contents: [
        { type: "uri", uri: XSS_URI, mediaType: "text/html" },
        { type: "data", mediaType: "image/svg+xml", data: "PHN2Zy8+" },
        {
          type: "function_call",
          callId: "<i>c</i>",
          name: "<script>x</script>",
          arguments: "<script>y</script>",
        },
      ],
    },
  ]);
  await store.create({ id: XSS_ID });

  const parts = await store.create({ id: "parts" });
  await parts.append({
    role: "user",
    contents: [
      { type: "text", text: "Here is the map and the booking." },
      { type: "data", mediaType: "image/png", data: PIXEL_PNG },
      { type: "file", fileId: "file_42", name: "booking.pdf", mediaType: "application/pdf" },
      { type: "uri", uri: "https://example.com/porto" },
    ],
  });

  const long = await store.create({ id: "long" });
  await long.append(
    Array.from({ length: 3000 }, (_, index) => ({ role: "user" as const, text: `message ${index}` })),
  );

  for (let index = 0; index < 55; index++)
    await store.create({ id: `bulk-${String(index).padStart(3, "0")}`, owner: "u-bulk" });
  await store.scope("tenant-a").create({ id: "tenant-thread" });

  await fillWorkflow(store);
  await fillVersions(store);
  return { checkpoint };
}

/** A chat whose answer was regenerated twice: Red (with a follow-up), Blue, then Green, the current one. */
async function fillVersions(store: ThreadStore): Promise<void> {
  const thread = await store.create({ id: "colours", owner: "u-7", title: "Colours" });
  const [, red] = await thread.append([
    { role: "user", text: "Name a colour." },
    { role: "assistant", text: "Red." },
    { role: "user", text: "Why red?" },
    { role: "assistant", text: "It is warm." },
  ]);
  const blue = await thread.regenerate?.(red?.id as string, { role: "assistant", text: "Blue." });
  await thread.regenerate?.(blue?.id as string, { role: "assistant", text: "Green." });
  await thread.append([
    { role: "user", text: "Why green?" },
    { role: "assistant", text: "It is calm." },
  ]);
}

async function fillWorkflow(store: ThreadStore): Promise<void> {
  const created = (await store.create("workflow", {
    id: "trip-plan",
    threads: ["planner", "critic"],
  })) as WorkflowThread;
  await created.thread("planner").append([
    { role: "user", text: "Plan three days in Porto." },
    {
      role: "assistant",
      authorName: "planner",
      text: "Day 1: Ribeira. Day 2: Serralves. Day 3: Douro valley.",
    },
  ]);
  await created
    .thread("critic")
    .append({ role: "assistant", authorName: "critic", text: "Day 3 needs a car." });
  const plan = await created.enqueue("plan", { threadKey: "planner" });
  await created.start(plan.id);
  await created.complete(plan.id);
  const review = await created.enqueue("review", { threadKey: "critic" });
  await created.start(review.id);
  await created.enqueue("book", { threadKey: "planner" });
  // A sub-thread of a service whose adapter this process does not have: kept as it is, shown as unreadable.
  const state = JSON.parse(JSON.stringify(await store.get("trip-plan")));
  state.threads.bookings = { $type: "foundry.conversation", id: "conv_1", conversationId: "conv_1" };
  await store.save(await store.open(state));
}
