// An A2A server in its own process, keeping its tasks in a skein store:
// `agent-process.ts <store url> <scope> <port, 0 for any>`. Prints "listening <port>" once it takes
// requests; the test kills it (SIGKILL, as a crash would) and starts another on the same port.
import { openStore } from "@skein/thread-core";
import { skeinTaskStore } from "../../src/index.js";
import { startAgentServer } from "../agent-server.js";

const [storeUrl, scope, port] = process.argv.slice(2);
if (!storeUrl || !scope) throw new Error("usage: agent-process.ts <store url> <scope> <port>");
const store = await openStore(storeUrl);
const server = await startAgentServer({
  taskStore: skeinTaskStore(store, { scope }),
  port: Number(port ?? 0),
});
process.stdout.write(`listening ${server.port}\n`);
