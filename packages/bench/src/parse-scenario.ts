import { createMemoryStore, createRegistry, parseThreadState } from "@skein/thread-core";
import type { Result } from "./compare.js";
import { measure } from "./measure.js";
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
  const raw = await measure(async () => JSON.parse(text), runs, 5);
  const skein = await measure(async () => parseThreadState(JSON.parse(text), { registry }), runs, 5);
  const metric = `${count.toLocaleString("en")} messages (${(text.length / 1e6).toFixed(1)} MB)`;
  return [
    { scenario: "parse", subject: "JSON.parse", metric, micros: raw.medianMicros },
    {
      scenario: "parse",
      subject: "parseThreadState(JSON.parse)",
      metric,
      micros: skein.medianMicros,
      note: "target ≤ 3×",
    },
  ];
}
