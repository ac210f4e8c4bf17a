import { MessageNotFoundError, MessageOffBranchError, NotAnAnswerError } from "../../branch-errors.js";
import { ConcurrencyError, ConflictError, PointNotFoundError } from "../../errors.js";
import type { LogThread } from "../../local/log-thread.js";
import type { Message } from "../../message.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

export const ids = async (thread: { messages(): Promise<Message[]> }) =>
  (await thread.messages()).map((message) => message.id);
export const user = (id: string, text = id) => ({ id, role: "user" as const, text });
export const answer = (id: string, text = id) => ({ id, role: "assistant" as const, text });
/** A version list as [id, current, length] rows, which is what most cases compare. */
const versions = async (thread: LogThread, messageId: string) =>
  (await thread.alternatives(messageId)).map((version) => [version.id, version.current, version.length]);

/** A chat of two turns: u1 a1 u2 a2, under `id` when given. */
export async function chat(context: SuiteContext, id?: string): Promise<LogThread> {
  const thread = (await context.store.create(id === undefined ? {} : { id })) as LogThread;
  await thread.append([user("u1"), answer("a1"), user("u2"), answer("a2")]);
  return thread;
}

/** Chat branching: edit, regenerate, alternatives and switchTo on a local thread. */
export function branchCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "edit continues from before the message with the replacement in one change; the old branch is an alternative",
    async () => {
      const thread = await chat(context);
      const before = thread.revision;
      const edited = await thread.edit("u2", user("u2b", "what about Lyon?"));
      expect(edited).toMatchObject({
        id: "u2b",
        role: "user",
        contents: [{ type: "text", text: "what about Lyon?" }],
      });
      expect(await ids(thread)).toEqual(["u1", "a1", "u2b"]);
      expect(thread.revision).toBe(before + 1);
      // Views and reads see the current branch only.
      expect((await thread.view({ maxMessages: 10 })).map((message) => message.id)).toEqual([
        "u1",
        "a1",
        "u2b",
      ]);
      expect(await thread.message("a2")).toBeUndefined();
      expect(await versions(thread, "u2b")).toEqual([
        ["u2", false, 4],
        ["u2b", true, 3],
      ]);
      // Either version names the position; a message without versions has itself alone.
      expect(await versions(thread, "u2")).toEqual(await versions(thread, "u2b"));
      expect(await versions(thread, "a1")).toEqual([["a1", true, 3]]);
      const [original] = await thread.alternatives("u2b");
      expect(original?.preview).toBe("u2");
      expect(original?.role).toBe("user");
      // history() keeps the branch left, and at() reads it as it was.
      const events = (await thread.history()).filter((event) => event.kind === "rollback");
      expect(events).toHaveLength(1);
      const [event] = events;
      expect(event?.kind === "rollback" && event.branch).toMatchObject({
        reason: "edit",
        position: 2,
        left: "u2",
        entered: "u2b",
      });
      if (event?.kind !== "rollback" || !original) throw new Error("no rollback event");
      expect(await ids(await thread.at(event.from))).toEqual(["u1", "a1", "u2", "a2"]);
      expect(await ids(await thread.at(original.end))).toEqual(["u1", "a1", "u2", "a2"]);
      // The first message has versions too.
      await thread.edit("u1", user("u1b"));
      expect(await ids(thread)).toEqual(["u1b"]);
      expect(await versions(thread, "u1b")).toEqual([
        ["u1", false, 3],
        ["u1b", true, 1],
      ]);
    },
  );

  conformanceCase(
    context,
    "regenerate drops an answer and what followed, kept as an alternative; a reply or a later append answers",
    async () => {
      const thread = await chat(context);
      await thread.append(user("u3"));
      expect(await thread.regenerate("a2")).toBeUndefined();
      expect(await ids(thread)).toEqual(["u1", "a1", "u2"]);
      const later = await thread.append(answer("a2b"));
      expect(later.map((message) => message.id)).toEqual(["a2b"]);
      expect(await versions(thread, "a2b")).toEqual([
        ["a2", false, 5],
        ["a2b", true, 4],
      ]);
      const reply = await thread.regenerate("a2b", answer("a2c", "third try"));
      expect(reply?.id).toBe("a2c");
      expect(await ids(thread)).toEqual(["u1", "a1", "u2", "a2c"]);
      expect((await thread.alternatives("a2c")).map((version) => [version.id, version.index])).toEqual([
        ["a2", 0],
        ["a2b", 1],
        ["a2c", 2],
      ]);
      // Only an assistant's answer is regenerated: a user message is edited instead; nothing is written.
      const revision = thread.revision;
      const error = await caught(thread.regenerate("u2"));
      expect(error).toBeInstanceOf(NotAnAnswerError);
      expect(error.message).toContain("thread.edit");
      await thread.refresh();
      expect(thread.revision).toBe(revision);
    },
  );

  conformanceCase(
    context,
    "switchTo makes a version's branch current again; the branch left becomes an alternative in its turn",
    async () => {
      const thread = await chat(context);
      await thread.edit("u2", user("u2b"));
      await thread.append(answer("a2b"));
      const back = await thread.switchTo("u2");
      expect(back.id).toBe("u2");
      expect(await ids(thread)).toEqual(["u1", "a1", "u2", "a2"]);
      expect(await versions(thread, "u2")).toEqual([
        ["u2", true, 4],
        ["u2b", false, 4],
      ]);
      // The branch left keeps what was appended to it, and grows again once entered.
      await thread.append(user("u3"));
      await thread.switchTo("u2b");
      expect(await ids(thread)).toEqual(["u1", "a1", "u2b", "a2b"]);
      await thread.append(user("u3b"));
      await thread.switchTo("u2");
      expect(await ids(thread)).toEqual(["u1", "a1", "u2", "a2", "u3"]);
      await thread.switchTo("u2b");
      expect(await ids(thread)).toEqual(["u1", "a1", "u2b", "a2b", "u3b"]);
      // A deeper edit on a branch has versions of its own and leaves the earlier position's alone.
      await thread.edit("u3b", user("u3c"));
      expect(await versions(thread, "u3c")).toEqual([
        ["u3b", false, 5],
        ["u3c", true, 5],
      ]);
      expect(await versions(thread, "u2b")).toEqual([
        ["u2", false, 5],
        ["u2b", true, 5],
      ]);
      // Switching to the version already current changes nothing.
      const revision = thread.revision;
      expect((await thread.switchTo("u2b")).id).toBe("u2b");
      expect(thread.revision).toBe(revision);
    },
  );

  conformanceCase(
    context,
    "an unknown message is a MessageNotFoundError, one further along another branch a MessageOffBranchError; nothing is written",
    async () => {
      const thread = await chat(context);
      await thread.edit("u2", user("u2b"));
      const revision = thread.revision;
      for (const call of [
        () => thread.edit("nope", user("x")),
        () => thread.regenerate("nope"),
        () => thread.switchTo("nope"),
        () => thread.alternatives("nope"),
      ]) {
        const error = await caught(call());
        expect(error).toBeInstanceOf(MessageNotFoundError);
        expect(PointNotFoundError.isInstance(error)).toBe(true);
      }
      // a2 followed u2, the version left: reach it by switching to u2 first.
      for (const call of [
        () => thread.regenerate("a2"),
        () => thread.switchTo("a2"),
        () => thread.edit("a2", answer("x")),
      ]) {
        const error = await caught(call());
        expect(error).toBeInstanceOf(MessageOffBranchError);
        expect(error.message).toContain("switchTo");
      }
      // A replacement under an earlier message's id, or another version's, is a conflict.
      expect(await caught(thread.edit("u2b", user("u1")))).toBeInstanceOf(ConflictError);
      expect(await caught(thread.edit("u2b", user("u2")))).toBeInstanceOf(ConflictError);
      await thread.refresh();
      expect(thread.revision).toBe(revision);
      expect(await ids(thread)).toEqual(["u1", "a1", "u2b"]);
    },
  );

  conformanceCase(
    context,
    "an edit that keeps the message's id is a new version; switchTo({ index }) picks among versions sharing it",
    async () => {
      const thread = await chat(context);
      const edited = await thread.edit("u2", user("u2", "a table for three"), { append: answer("a2b") });
      expect(edited.contents).toEqual([{ type: "text", text: "a table for three" }]);
      expect(await ids(thread)).toEqual(["u1", "a1", "u2", "a2b"]);
      // A retry of that edit finds it done; the same id with yet other content is a third version.
      const revision = thread.revision;
      await thread.edit("u2", user("u2", "a table for three"), { append: answer("a2b") });
      expect(thread.revision).toBe(revision);
      await thread.edit("u2", user("u2", "a table for four"));
      const listed = await thread.alternatives("u2");
      expect(listed.map((version) => [version.id, version.index, version.current, version.preview])).toEqual([
        ["u2", 0, false, "u2"],
        ["u2", 1, false, "a table for three"],
        ["u2", 2, true, "a table for four"],
      ]);
      // Without an index, the newest other version with the id; with one, that version.
      await thread.switchTo("u2");
      expect((await thread.messages()).map((message) => message.contents)).toEqual([
        [{ type: "text", text: "u1" }],
        [{ type: "text", text: "a1" }],
        [{ type: "text", text: "a table for three" }],
        [{ type: "text", text: "a2b" }],
      ]);
      await thread.switchTo("u2", { index: 0 });
      expect(await ids(thread)).toEqual(["u1", "a1", "u2", "a2"]);
      expect((await thread.alternatives("u2")).map((version) => version.current)).toEqual([
        true,
        false,
        false,
      ]);
      const wrong = await caught(thread.switchTo("u2", { index: 5 }));
      expect(wrong.name).toBe("InvalidOptionError");
      // Another message's id under other content is still a conflict, as for an append.
      expect(await caught(thread.edit("u2", user("a1", "other")))).toBeInstanceOf(ConflictError);
    },
  );

  conformanceCase(
    context,
    "edit and regenerate with { append } write the new version and what follows it in one change",
    async () => {
      const thread = await chat(context);
      const before = thread.revision;
      await thread.edit("u2", user("u2b"), { append: [answer("a2b"), user("u3b")] });
      expect(await ids(thread)).toEqual(["u1", "a1", "u2b", "a2b", "u3b"]);
      expect(thread.revision).toBe(before + 1);
      // A retry finds all of it written; other content under those ids is a conflict, nothing written.
      await thread.edit("u2", user("u2b"), { append: [answer("a2b"), user("u3b")] });
      expect(thread.revision).toBe(before + 1);
      expect(
        await caught(thread.edit("u2", user("u2b"), { append: [answer("a2b", "other")] })),
      ).toBeInstanceOf(ConflictError);
      // Ids earlier in the thread or given twice are conflicts too.
      expect(await caught(thread.edit("u2b", user("u2c"), { append: [answer("a1")] }))).toBeInstanceOf(
        ConflictError,
      );
      expect(
        await caught(thread.edit("u2b", user("u2c"), { append: [answer("x"), answer("x")] })),
      ).toBeInstanceOf(ConflictError);
      await thread.refresh();
      expect(thread.revision).toBe(before + 1);
      await thread.regenerate("a2b", answer("a2c"), { append: user("u3c") });
      expect(await ids(thread)).toEqual(["u1", "a1", "u2b", "a2c", "u3c"]);
      expect(await versions(thread, "a2c")).toEqual([
        ["a2b", false, 5],
        ["a2c", true, 5],
      ]);
      expect(thread.revision).toBe(before + 2);
    },
  );

  conformanceCase(
    context,
    "a stale ifRevision refuses edit, regenerate and switchTo, writing nothing",
    async () => {
      const thread = await chat(context);
      await thread.edit("u2", user("u2b"), { ifRevision: thread.revision });
      const stale = thread.revision - 1;
      const revision = thread.revision;
      for (const call of [
        () => thread.edit("u2b", user("u2c"), { ifRevision: stale }),
        () => thread.regenerate("a1", undefined, { ifRevision: stale }),
        () => thread.switchTo("u2", { ifRevision: stale }),
      ]) {
        expect(await caught(call())).toBeInstanceOf(ConcurrencyError);
      }
      await thread.refresh();
      expect(thread.revision).toBe(revision);
      expect(await ids(thread)).toEqual(["u1", "a1", "u2b"]);
      expect(await versions(thread, "u2b")).toHaveLength(2);
      // A revision given as text (a header) is read as that number.
      await thread.switchTo("u2", { ifRevision: String(revision) as unknown as number });
      expect(await ids(thread)).toEqual(["u1", "a1", "u2", "a2"]);
    },
  );
}
