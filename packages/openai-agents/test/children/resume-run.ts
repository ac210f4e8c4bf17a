// A second process: opens the session by id in the same file store, approves the pending tool call of the
// saved run state, and finishes the run. argv: store URL, session id, emulator URL, API key, state file.
import { readFile } from "node:fs/promises";
import { RunState, run } from "@openai/agents-core";
import { openStore } from "@skein/thread-core";
import { createSkeinSession } from "../../src/index.js";
import { weatherAgent } from "../weather-agent.js";

const [storeUrl, sessionId, emulatorUrl, apiKey, stateFile] = process.argv.slice(2) as string[];
const store = await openStore(storeUrl as string);
const session = await createSkeinSession({ store, sessionId });
const agent = weatherAgent(emulatorUrl as string, apiKey as string, { approval: true });
const state = await RunState.fromString(agent, await readFile(stateFile as string, "utf8"));
for (const interruption of state.getInterruptions()) state.approve(interruption);
const result = await run(agent, state, { session });
process.stdout.write(JSON.stringify({ finalOutput: result.finalOutput }));
await store.close();
