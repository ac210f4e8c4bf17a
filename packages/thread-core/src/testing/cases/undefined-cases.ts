import { InvalidMessageError, InvalidThreadStateError, SkeinError } from "../../errors.js";
import type { Thread } from "../../thread.js";
import type { WorkflowThread } from "../../workflow/workflow-thread.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

/** `{ gone: undefined, ...kept }`: an object holding an `undefined` property next to the data that stays. */
const withUndefined = (kept: Record<string, unknown>) => ({ gone: undefined, ...kept });

/** Whether a value, at any depth, holds an own property named `gone` (it must have been dropped). */
function holdsGone(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsGone);
  if (typeof value !== "object" || value === null) return false;
  return Object.hasOwn(value, "gone") || Object.values(value).some(holdsGone);
}

/** The thread's metadata and context as the store gives them back to a fresh reader. */
async function stored(context: SuiteContext, id: string): Promise<Pick<Thread, "metadata" | "context">> {
  const thread = await context.store.get(id);
  return { metadata: thread.metadata, context: thread.context };
}

/**
 * Issue 35, item 4: one rule for `undefined` at every door, the rule of `JSON.stringify`. An object property
 * whose value is `undefined` is absent (dropped, never stored); an `undefined` array element is refused,
 * naming its path (`JSON.stringify` would write `null`, a value nobody gave).
 */
export function undefinedCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "an undefined property of metadata, context or a message is dropped at create, update, fork, append, import, open and save alike",
    async () => {
      const store = context.store;
      // create
      const thread = await store.create({
        id: "undefined-props",
        metadata: withUndefined({ kept: 1, nested: withUndefined({ deep: true }) }),
        context: withUndefined({ memory: withUndefined({ facts: ["tea"] }) }),
      });
      expect(await stored(context, thread.id)).toEqual({
        metadata: { kept: 1, nested: { deep: true } },
        context: { memory: { facts: ["tea"] } },
      });
      // update
      await thread.update({ metadata: withUndefined({ kept: 2 }), context: withUndefined({ note: "n" }) });
      expect(await stored(context, thread.id)).toEqual({ metadata: { kept: 2 }, context: { note: "n" } });
      // append, and rollback's append: a message's own fields and its metadata
      const [message] = await thread.append({
        id: "m1",
        role: "user",
        text: "hi",
        authorName: undefined,
        metadata: withUndefined({ source: "web" }),
      } as never);
      expect(message?.metadata).toEqual({ source: "web" });
      const checkpoint = await thread.checkpoint();
      await thread.rollback(checkpoint, {
        append: { id: "m2", role: "user", text: "again", metadata: withUndefined({}) },
      });
      const messages = await thread.messages();
      expect(messages.map((each) => each.metadata)).toEqual([{ source: "web" }, {}]);
      expect(holdsGone(messages)).toBe(false);
      // A re-send of the same message with the property undefined is the same message: a no-op.
      await thread.append({
        id: "m1",
        role: "user",
        text: "hi",
        metadata: { source: "web", gone: undefined },
      });
      expect(await thread.messages()).toHaveLength(2);
      // fork
      const fork = await thread.fork({ id: "undefined-fork", metadata: withUndefined({ branch: true }) });
      expect((await stored(context, fork.id)).metadata).toEqual({ kept: 2, branch: true });
      // import: an export with undefined properties at the top, in the context and in a message
      const exported = JSON.parse(JSON.stringify(await store.export(thread.id)));
      exported.metadata = withUndefined(exported.metadata);
      exported.context = withUndefined(exported.context);
      exported.segments[0].messages[0].metadata = withUndefined(exported.segments[0].messages[0].metadata);
      const imported = await store.import(exported, { id: "undefined-import" });
      expect(await stored(context, imported.id)).toEqual({ metadata: { kept: 2 }, context: { note: "n" } });
      expect(holdsGone(await imported.messages())).toBe(false);
      expect(holdsGone(await store.export(imported.id))).toBe(false);
      // open: the thread's own JSON (for most stores a reference to its log), with undefined properties
      const json = { ...thread.toJSON(), metadata: withUndefined({ kept: 2 }), context: withUndefined({}) };
      const opened = await store.open(json);
      expect(opened.id).toBe(thread.id);
      expect(holdsGone(opened.toJSON())).toBe(false);
      // save: a workflow (a state document) made and changed with undefined properties
      const workflow = (await store.create("workflow", {
        id: "undefined-workflow",
        threads: ["main"],
        metadata: withUndefined({ chat: "c1" }),
      })) as WorkflowThread;
      await workflow.update({ metadata: withUndefined({ chat: "c2" }), context: withUndefined({}) });
      const state = await store.getState(workflow.id);
      expect(state.metadata).toEqual({ chat: "c2" });
      expect(holdsGone(state)).toBe(false);
      const reopened = await store.open({ ...workflow.toJSON(), metadata: withUndefined({ chat: "c2" }) });
      expect(reopened.metadata).toEqual({ chat: "c2" });
    },
    60_000,
  );

  conformanceCase(
    context,
    "an undefined array element is refused at create, update, fork, append, import and open alike, naming its path",
    async () => {
      const store = context.store;
      const holey = { list: [1, undefined, 3] };
      const thread = await store.create({ id: "undefined-holes", metadata: { kept: true } });
      await thread.append({ id: "m1", role: "user", text: "hi" });
      const exported = JSON.parse(JSON.stringify(await store.export(thread.id)));
      const refusals: Array<[string, () => Promise<unknown>, string]> = [
        ["create metadata", () => store.create({ id: "refused", metadata: holey }), "metadata.list[1]"],
        ["create context", () => store.create({ id: "refused", context: holey }), "context.list[1]"],
        ["update metadata", () => thread.update({ metadata: holey }), "metadata.list[1]"],
        ["update context", () => thread.update({ context: holey }), "context.list[1]"],
        ["fork metadata", () => thread.fork({ id: "refused", metadata: holey }), "metadata.list[1]"],
        [
          "append",
          () => thread.append({ id: "m2", role: "user", text: "x", metadata: holey }),
          "metadata.list[1]",
        ],
        [
          "import",
          () => store.import({ ...exported, metadata: holey }, { id: "refused" }),
          "metadata.list[1]",
        ],
        ["open", () => store.open({ ...thread.toJSON(), metadata: holey }), "metadata.list[1]"],
      ];
      for (const [door, call, path] of refusals) {
        const error = await caught(call());
        expect(
          InvalidThreadStateError.isInstance(error) || InvalidMessageError.isInstance(error),
          `${door}: ${error}`,
        ).toBe(true);
        expect(SkeinError.isInstance(error)).toBe(true);
        expect(error.message, door).toContain(path);
      }
      expect((await store.list()).items.map((item) => item.id)).toEqual([thread.id]);
      const fresh = await store.get(thread.id);
      expect(fresh.revision).toBe(thread.revision);
      expect(fresh.metadata).toEqual({ kept: true });
      expect(await fresh.messages()).toHaveLength(1);
    },
  );
}
