#!/usr/bin/env node
// A three-agent workflow (planner → researcher → writer) on the file store. Run it, stop it part-way
// with `--stop-after <step>` (the process exits while that step is still running), then run it again,
// from another process: it resumes from the workflow's recorded current and next steps.
//
//   node examples/three-agents/run.mjs file:./.skein-example --stop-after research
//   node examples/three-agents/run.mjs file:./.skein-example
import { openStore } from "@skein/thread-core";
import { agents } from "./agents.mjs";

const [url = "file:./.skein-example", flag, stopAfter] = process.argv.slice(2);
const store = await openStore(url);
const workflowId = "trip-plan";

async function openOrCreate() {
  try {
    const workflow = await store.get(workflowId);
    console.log(`resumed ${workflowId}: ${describe(workflow)}`);
    return workflow;
  } catch (error) {
    if (error.name !== "ThreadNotFoundError") throw error;
  }
  const workflow = await store.create("workflow", {
    id: workflowId,
    threads: ["main", "planner", "researcher", "writer"],
  });
  await workflow.thread("main").append({ id: "ask", role: "user", text: "Plan me a day in Lisbon." });
  for (const agent of Object.values(agents)) await workflow.enqueue(agent.step, { threadKey: agent.step });
  console.log(`created ${workflowId}: ${describe(workflow)}`);
  return workflow;
}

function agentName(agent) {
  return Object.keys(agents).find((name) => agents[name] === agent);
}

function describe(workflow) {
  const name = (id) => workflow.execution.steps.find((step) => step.id === id)?.name;
  const done = workflow.execution.steps
    .filter((step) => step.status === "completed")
    .map((step) => step.name);
  return `done [${done}] running [${workflow.execution.current.map(name)}] next [${workflow.execution.next.map(name)}]`;
}

const workflow = await openOrCreate();
const outputs = Object.fromEntries(
  workflow.execution.steps
    .filter((step) => step.status === "completed")
    .map((step) => [step.name, step.output]),
);
// A step left running by an interrupted process is run again; its writes are idempotent by message id.
const pending = [...workflow.execution.current, ...workflow.execution.next];
for (const stepId of pending) {
  let step = workflow.execution.steps.find((candidate) => candidate.id === stepId);
  if (step.status === "pending") step = await workflow.start(step.id);
  const agent = Object.values(agents).find((candidate) => candidate.step === step.name);
  console.log(`${step.name}: ${agentName(agent)} working`);
  outputs[step.name] = await agent.run(workflow, step, outputs);
  if (flag === "--stop-after" && stopAfter === step.name) {
    // As if the process died after the agent wrote but before the step was marked complete.
    console.log(`stopping while "${step.name}" is still marked running`);
    process.exit(0);
  }
  await workflow.complete(step.id, outputs[step.name]);
}
const [answer] = await workflow.thread("main").messages({ last: 1 });
console.log(`finished: ${describe(workflow)}`);
console.log(`answer: ${answer.contents[0].text}`);
for (const key of workflow.keys())
  console.log(`  ${key}: ${(await workflow.thread(key).messages()).length} messages`);
await store.close();
