import { openStore } from "@skein/thread-core";
import { canonicalJson } from "@skein/thread-core/driver";

/**
 * `count` threads with real histories, as `skein export` writes them (JSON Lines, ids in order): half
 * are conversations with a tool call, checkpoints and sometimes a rollback; the other half are forks of
 * them, at a checkpoint or at the end, with messages and checkpoints of their own.
 */
export async function threadsWithHistory(count: number): Promise<string> {
  const store = await openStore("memory:");
  const roots = Math.ceil(count / 2);
  const ids: string[] = [];
  for (let index = 0; index < roots; index++) {
    const id = `thread-${String(index).padStart(4, "0")}`;
    const thread = await store.create({ id, metadata: { index, user: `u-${index % 7}` } });
    await thread.append([
      { role: "system", text: "You are a concise assistant." },
      { role: "user", text: `Question ${index}: is it warm in city ${index}?` },
      {
        role: "assistant",
        contents: [
          { type: "function_call", callId: `call_${index}`, name: "weather", arguments: { city: index } },
        ],
      },
      {
        role: "tool",
        contents: [{ type: "function_result", callId: `call_${index}`, result: { celsius: index % 35 } }],
      },
    ]);
    const checkpoint = await thread.checkpoint(`answered-${index}`);
    await thread.append({ role: "assistant", text: `It is ${index % 35}°C.` });
    if (index % 3 === 0) {
      await thread.rollback(checkpoint);
      await thread.append({ role: "assistant", text: `Rather: ${index % 35} degrees.` });
    }
    ids.push(id);
    if (ids.length + roots - index - 1 >= count) continue;
    const fork = await thread.fork({ id: `${id}-fork`, ...(index % 2 === 0 ? { at: checkpoint } : {}) });
    await fork.append({ role: "user", text: `And tomorrow, in city ${index}?` });
    if (index % 4 === 1) await fork.checkpoint("follow-up");
    ids.push(fork.id);
  }
  const lines: string[] = [];
  for (const id of ids.sort()) lines.push(canonicalJson(await store.export(id)));
  await store.close();
  return `${lines.join("\n")}\n`;
}
