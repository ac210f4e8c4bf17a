import { memoryThreadType } from "./memory/memory-thread-type.js";
import { Registry } from "./registry.js";
import { workflowThreadType } from "./workflow/workflow-thread-type.js";

/** A new registry holding skein's built-in types, isolated from the process-wide one. */
export function createRegistry(): Registry {
  return new Registry().register(memoryThreadType).register(workflowThreadType);
}

const REGISTRY_KEY = Symbol.for("skein.registry");

/**
 * The process-wide registry, kept on `globalThis` so that two installed copies of thread-core share it.
 * @example registry.register(ticketType)
 */
export function defaultRegistry(): Registry {
  const holder = globalThis as typeof globalThis & { [REGISTRY_KEY]?: Registry };
  holder[REGISTRY_KEY] ??= createRegistry();
  return holder[REGISTRY_KEY];
}
