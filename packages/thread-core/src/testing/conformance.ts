import type { ThreadStore } from "../store/store.js";
import { appendCases } from "./cases/append-cases.js";
import { argumentCases } from "./cases/argument-cases.js";
import { branchCases } from "./cases/branch-cases.js";
import { branchRetryCases } from "./cases/branch-retry-cases.js";
import { catalogueCases } from "./cases/catalogue-cases.js";
import { catalogueCursorCases } from "./cases/catalogue-cursor-cases.js";
import { editCases } from "./cases/edit-cases.js";
import { erasureCases } from "./cases/erasure-cases.js";
import { fenceCases } from "./cases/fence-cases.js";
import { formatCases } from "./cases/format-cases.js";
import { historyCases } from "./cases/history-cases.js";
import { ifRevisionCases } from "./cases/if-revision-cases.js";
import { importCases } from "./cases/import-cases.js";
import { jsonCases } from "./cases/json-cases.js";
import { managerCases } from "./cases/manager-cases.js";
import { ownTypesCases } from "./cases/own-types-cases.js";
import { retentionCases } from "./cases/retention-cases.js";
import { scopeCases } from "./cases/scope-cases.js";
import { storeCases } from "./cases/store-cases.js";
import { streamingCases } from "./cases/streaming-cases.js";
import { tracingCases } from "./cases/tracing-cases.js";
import { undefinedCases } from "./cases/undefined-cases.js";
import { viewCases } from "./cases/view-cases.js";
import { workflowCases } from "./cases/workflow-cases.js";
import { workflowFenceCases } from "./cases/workflow-fence-cases.js";
import type { ConformanceOptions } from "./conformance-options.js";
import type { SuiteContext } from "./suite-context.js";

export type { ConformanceOptions } from "./conformance-options.js";

/**
 * Registers every promise of SPEC §2–5 as named cases against a store, through your test runner's `describe` and
 * `it` (the suite imports no runner). A store's whole conformance test:
 * @example runConformanceSuite({ name: "memory", createStore: () => openStore("memory:"), describe, it });
 */
export function runConformanceSuite(options: ConformanceOptions): void {
  options.describe(`conformance: ${options.name}`, () => {
    // Each case makes its store (conformanceCase); the context hands it to the case's body.
    const context: SuiteContext = {
      store: undefined as unknown as ThreadStore,
      options,
    };
    for (const group of [
      formatCases,
      appendCases,
      storeCases,
      catalogueCases,
      catalogueCursorCases,
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
      streamingCases,
      retentionCases,
      erasureCases,
    ]) {
      group(context);
    }
  });
}
