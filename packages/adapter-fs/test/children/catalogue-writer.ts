// Changes its own threads at random until it has made `changes` changes (or forever with "forever"):
// creates, appends, owner changes, forks and deletes, so that the catalogue moves in every way. Prints
// "ready" once its store is open.
import { fsStore } from "../../src/index.js";

const [directory, name, changes] = process.argv.slice(2) as [string, string, string];
const limit = changes === "forever" ? Number.POSITIVE_INFINITY : Number(changes);
const store = fsStore({ directory });
const owners = ["u", "v", "u"];
process.stdout.write("ready\n");
for (let change = 0; change < limit; change++) {
  const id = `${name}-${Math.floor(Math.random() * 12)}`;
  const owner = owners[change % owners.length] as string;
  const existing = (await store.list({ prefix: id, limit: 1 })).items.find((item) => item.id === id);
  if (!existing) {
    await store.create({ id, owner, title: `${id} by ${name}` });
    continue;
  }
  const thread = await store.get(id);
  const choice = Math.random();
  if (choice < 0.6) await thread.append({ role: "user", text: `change ${change}` });
  else if (choice < 0.75) await thread.update({ owner });
  else if (choice < 0.85) await thread.fork({ id: `${id}-fork-${change}`, owner });
  else await store.delete(id);
}
await store.close();
