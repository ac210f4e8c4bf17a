// Three scripted agents. They stand in for model calls so the example runs anywhere; each writes with
// message ids derived from the step, so a step that is re-run after a crash appends nothing twice.

export const agents = {
  planner: {
    step: "plan",
    async run(workflow, step) {
      const outline = ["Pick three sights in Lisbon", "Check tram 28 times", "Draft a one-day plan"];
      await workflow.thread("planner").append({
        id: `${step.id}-plan`,
        role: "assistant",
        authorName: "planner",
        text: `Plan:\n- ${outline.join("\n- ")}`,
      });
      return { outline };
    },
  },
  researcher: {
    step: "research",
    async run(workflow, step) {
      const findings = [
        { sight: "Belém Tower", hours: "10:00–17:30" },
        { sight: "Alfama", hours: "always open" },
        { sight: "LX Factory", hours: "10:00–20:00" },
      ];
      const thread = workflow.thread("researcher");
      await thread.append([
        {
          id: `${step.id}-call`,
          role: "assistant",
          authorName: "researcher",
          contents: [
            {
              type: "function_call",
              callId: `${step.id}-hours`,
              name: "opening_hours",
              arguments: { city: "Lisbon" },
            },
          ],
        },
        {
          id: `${step.id}-result`,
          role: "tool",
          contents: [{ type: "function_result", callId: `${step.id}-hours`, result: findings }],
        },
      ]);
      return { findings };
    },
  },
  writer: {
    step: "write",
    async run(workflow, step, inputs) {
      const findings = inputs.research?.findings ?? [];
      const text = `A day in Lisbon: ${findings.map((finding) => `${finding.sight} (${finding.hours})`).join(", then ")}.`;
      await workflow
        .thread("writer")
        .append({ id: `${step.id}-draft`, role: "assistant", authorName: "writer", text });
      await workflow
        .thread("main")
        .append({ id: `${step.id}-answer`, role: "assistant", authorName: "writer", text });
      return { words: text.split(/\s+/).length };
    },
  },
};
