import { createMemoryStore, createRegistry, parseThreadState } from "@skein/thread-core";
import type { Result } from "./compare.js";
import { measureInTurns } from "./measure.js";
import { workloadMessages } from "./workload.js";

/** `parseThreadState` of a 10,000-message memory thread's JSON beside a bare `JSON.parse` of the same text. */
export async function parseResults(runs: number, count = 10_000): Promise<Result[]> {
  const registry = createRegistry();
  const thread = await createMemoryStore({ registry }).create();
  const messages = workloadMessages(count);
  for (let from = 0; from < count; from += 1000) {
    await thread.append(messages.slice(from, from + 1000) as Array<{ role: "user"; text: string }>);
  }
  const text = JSON.stringify(thread);
  const [raw, skein] = (await measureInTurns(
    [async () => JSON.parse(text), async () => parseThreadState(JSON.parse(text), { registry })],
    runs,
    5,
    Math.min(5, runs),
  )) as [number, number];
  const metric = `${count.toLocaleString("en")} messages (${(text.length / 1e6).toFixed(1)} MB)`;
  return [
    { scenario: "parse", subject: "JSON.parse", metric, micros: raw },
    {
      scenario: "parse",
      subject: "parseThreadState(JSON.parse)",
      metric,
      micros: skein,
      note: "target ≤ 3×",
    },
  ];
}
