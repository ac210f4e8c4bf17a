import { PointNotFoundError, ThreadNotFoundError } from "../../errors.js";
import { expect } from "../expect.js";
import { caught, conformanceCase, type SuiteContext } from "../suite-context.js";

/** SPEC §5: `store.scope(tenant)` isolates tenants completely. */
export function scopeCases(context: SuiteContext): void {
  conformanceCase(
    context,
    "a scope's threads are invisible to and unreachable from other scopes",
    async () => {
      const tenantA = context.store.scope("tenant-a");
      const tenantB = context.store.scope("tenant-b");
      const secret = await tenantA.create({ id: "shared-id", metadata: { owner: "a" } });
      await secret.append({ id: "s1", role: "user", text: "a's secret" });
      const checkpoint = await secret.checkpoint();

      expect(await caught(tenantB.get("shared-id"))).toBeInstanceOf(ThreadNotFoundError);
      expect(await caught(context.store.get("shared-id"))).toBeInstanceOf(ThreadNotFoundError);
      expect((await tenantB.list()).items).toEqual([]);
      expect((await context.store.list()).items).toEqual([]);
      expect((await tenantA.list()).items.map((item) => item.id)).toEqual(["shared-id"]);

      // The same id in another scope is another thread; writing it never touches tenant A's.
      const other = await tenantB.create({ id: "shared-id" });
      await other.append({ id: "s1", role: "user", text: "b's own" });
      expect(
        (await (await tenantA.get("shared-id")).messages()).map((message) => message.contents[0]),
      ).toEqual([{ type: "text", text: "a's secret" }]);
      // A thread of B cannot fork or travel to A's points.
      expect(await caught(other.at(checkpoint))).toBeInstanceOf(PointNotFoundError);
      expect(await caught(other.rollback(checkpoint.point))).toBeInstanceOf(PointNotFoundError);
      expect(await caught(other.fork({ at: checkpoint }))).toBeInstanceOf(PointNotFoundError);
      expect(await tenantB.delete("shared-id")).toBe(true);
      expect(await (await tenantA.get("shared-id")).messages()).toHaveLength(1);
    },
  );

  conformanceCase(context, "ids that look like another scope's keys resolve to nothing", async () => {
    const tenantA = context.store.scope("a");
    await tenantA.create({ id: "x" });
    for (const id of ["a/x", "a:x", "{a}x", "a\\x", "ax", "tenant-a/x", "a"]) {
      expect(await caught(context.store.get(id))).toBeInstanceOf(ThreadNotFoundError);
      expect(await caught(context.store.scope("b").get(id))).toBeInstanceOf(ThreadNotFoundError);
    }
    // A scope whose name sorts after every other key never cuts the unscoped listing short.
    await context.store.create({ id: "plain-1" });
    await context.store.create({ id: "plain-2" });
    await context.store.scope("\uffff").create({ id: "hidden" });
    const first = await context.store.list({ limit: 1 });
    expect(first.items.map((item) => item.id)).toEqual(["plain-1"]);
    expect(
      (await context.store.list({ limit: 1, cursor: first.cursor })).items.map((item) => item.id),
    ).toEqual(["plain-2"]);
    const nested = tenantA.scope("inner");
    await nested.create({ id: "deep" });
    expect((await tenantA.list()).items.map((item) => item.id)).toEqual(["x"]);
    expect((await nested.list()).items.map((item) => item.id)).toEqual(["deep"]);
    expect(await caught(tenantA.get("deep"))).toBeInstanceOf(ThreadNotFoundError);
  });

  conformanceCase(
    context,
    "a scope's JSON carries no scope, and imports into a scope stay there",
    async () => {
      const tenantA = context.store.scope("a");
      const thread = await tenantA.create({ id: "t" });
      await thread.append({ id: "m1", role: "user", text: "hello" });
      const fork = await thread.fork({ id: "f" });
      expect(JSON.stringify(thread)).not.toContain("\u001f");
      expect((await fork.messages()).map((message) => message.id)).toEqual(["m1"]);
      const exported = await tenantA.export("t");
      const tenantB = context.store.scope("b");
      const copy = await tenantB.import(exported);
      expect((await copy.messages()).map((message) => message.id)).toEqual(["m1"]);
      expect((await context.store.list()).items).toEqual([]);
    },
  );
}
