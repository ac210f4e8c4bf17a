import { afterEach, beforeEach, describe } from "vitest";
import type { ThreadStore } from "../store/store.js";
import { appendCases } from "./cases/append-cases.js";
import { argumentCases } from "./cases/argument-cases.js";
import { branchCases } from "./cases/branch-cases.js";
import { branchRetryCases } from "./cases/branch-retry-cases.js";
import { editCases } from "./cases/edit-cases.js";
import { fenceCases } from "./cases/fence-cases.js";
import { formatCases } from "./cases/format-cases.js";
import { historyCases } from "./cases/history-cases.js";
import { ifRevisionCases } from "./cases/if-revision-cases.js";
import { importCases } from "./cases/import-cases.js";
import { jsonCases } from "./cases/json-cases.js";
import { managerCases } from "./cases/manager-cases.js";
import { ownTypesCases } from "./cases/own-types-cases.js";
import { scopeCases } from "./cases/scope-cases.js";
import { storeCases } from "./cases/store-cases.js";
import { tracingCases } from "./cases/tracing-cases.js";
import { undefinedCases } from "./cases/undefined-cases.js";
import { viewCases } from "./cases/view-cases.js";
import { workflowCases } from "./cases/workflow-cases.js";
import { workflowFenceCases } from "./cases/workflow-fence-cases.js";
import type { ConformanceOptions } from "./conformance-options.js";
import type { SuiteContext } from "./suite-context.js";

export type { ConformanceOptions } from "./conformance-options.js";

/**
 * Registers every promise of SPEC §2–5 as vitest cases against a store. A store's whole conformance test:
 * @example runConformanceSuite({ name: "memory", createStore: () => openStore("memory:") });
 */
export function runConformanceSuite(options: ConformanceOptions): void {
  describe(`conformance: ${options.name}`, () => {
    const context: SuiteContext = {
      store: undefined as unknown as ThreadStore,
      options,
    };
    beforeEach(async () => {
      context.store = await options.createStore();
    });
    afterEach(async () => {
      await context.store?.close();
      await options.cleanup?.();
    });
    for (const group of [
      formatCases,
      appendCases,
      storeCases,
      jsonCases,
      undefinedCases,
      importCases,
      historyCases,
      editCases,
      branchCases,
      branchRetryCases,
      fenceCases,
      ifRevisionCases,
      viewCases,
      argumentCases,
      scopeCases,
      workflowCases,
      workflowFenceCases,
      managerCases,
      ownTypesCases,
      tracingCases,
    ]) {
      group(context);
    }
  });
}
